import { configSecrets } from './platform/ops/config/config.js';
import { loadConfig, loadDotEnv } from './platform/ops/config/load-config.js';
import { createLogger, type Logger } from './platform/ops/telemetry/create-logger.js';
import { createSecretScrubber } from './platform/ops/telemetry/secret-scrubber.js';
import { startTracing } from './platform/ops/telemetry/tracing.js';
import { startMintlink } from './start-mintlink.js';

/*
 * The one built artifact (dist/mintlink.mjs) runs the app, or with a first argument one of the operator's
 * commands (`npm run -s settings -- show` is `node dist/mintlink.mjs settings show`), so production needs no dev
 * tool to run them. Each command is loaded only when asked for: starting the app never evaluates their code.
 */
const OPERATOR_COMMANDS: Record<string, () => Promise<(args: readonly string[]) => Promise<number>>> = {
  settings: async () => (await import('./operator/settings-command.js')).runSettingsCommand,
  secrets: async () => (await import('./operator/secrets-command.js')).runSecretsCommand,
  manifest: async () => (await import('./operator/manifest-command.js')).runManifestCommand,
  doctor: async () => (await import('./operator/doctor-command.js')).runDoctorCommand,
};

const USAGE = `Usage: node dist/mintlink.mjs [command]

With no command, runs the app (npm start). Operator commands, run where the app runs (same environment or .env):
${Object.keys(OPERATOR_COMMANDS)
  .map((name) => `  ${name.padEnd(10)} npm run -s ${name} -- --help`)
  .join('\n')}
`;

/** The process: its environment, tracing, signals and exit codes around the app (start-mintlink.ts). */
async function runApp(): Promise<void> {
  const started = performance.now();
  loadDotEnv();
  const loaded = loadConfig(process.env);
  if (!loaded.ok) {
    process.stderr.write(`${loaded.message}\n`);
    process.exit(1);
  }
  const { config } = loaded;
  const scrub = createSecretScrubber(configSecrets(config));
  const logger = createLogger({
    level: config.logLevel,
    scrub,
    pretty: config.logFormat === undefined ? process.stdout.isTTY === true : config.logFormat === 'pretty',
  });
  watchProcessErrors(logger);

  // OpenTelemetry's own variable (its exporter reads the other OTEL_* ones); unset, nothing is loaded.
  const stopTracing = await startTracing(process.env.OTEL_EXPORTER_OTLP_ENDPOINT, logger);
  const outcome = await startMintlink(config, logger, scrub);
  if (!outcome.ok) {
    logger.fatal(outcome.reason);
    process.exit(1);
  }
  const { app } = outcome;
  const shutdown = async (signal: NodeJS.Signals) => {
    await app.stop({ signal });
    await stopTracing();
    logger.info('stopped');
    process.exit(0);
  };
  // Before "started" is said: a signal sent on that line must find its handler (until one is installed, the
  // OS default ends the process at once).
  process.on('SIGTERM', (signal) => void shutdown(signal));
  process.on('SIGINT', (signal) => void shutdown(signal));
  logger.info(
    {
      mode: config.mode,
      port: config.port,
      metricsPort: app.metricsPort,
      store: config.store.engine,
      ready: app.ready,
      ms: Math.round(performance.now() - started),
    },
    `mintlink started in ${config.mode === 'socket' ? 'Socket Mode' : 'HTTP mode'}`,
  );
}

function watchProcessErrors(logger: Logger): void {
  process.on('unhandledRejection', (reason) => logger.error({ err: reason }, 'unhandled promise rejection'));
  process.on('uncaughtException', (error) => {
    logger.fatal({ err: error }, 'uncaught exception; exiting');
    process.exit(1);
  });
}

/** The app, or the operator's command named by the first argument; its exit code is the process's. */
async function main(args: readonly string[]): Promise<void> {
  const [name, ...rest] = args;
  if (name === undefined) return runApp();
  const load = Object.hasOwn(OPERATOR_COMMANDS, name) ? OPERATOR_COMMANDS[name] : undefined;
  if (load === undefined) {
    const help = name === '-h' || name === '--help';
    (help ? process.stdout : process.stderr).write(
      `${help ? '' : `Unknown command ${JSON.stringify(name)}.\n\n`}${USAGE}`,
    );
    process.exitCode = help ? 0 : 2;
    return;
  }
  const run = await load();
  // Not process.exit(): the command's output to a pipe is written in full before the process ends.
  process.exitCode = await run(rest);
}

await main(process.argv.slice(2));
