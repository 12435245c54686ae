import { configSecrets } from './config/config.js';
import { loadConfig, loadDotEnv } from './config/load-config.js';
import { createLogger, type Logger } from './logging/create-logger.js';
import { createSecretScrubber } from './logging/secret-scrubber.js';
import { startTracing } from './observability/tracing.js';
import { startMintlink } from './start-mintlink.js';
import { runDoctorCommand } from './setup-checks/doctor-command.js';

/** The process: its environment, tracing, signals and exit codes around the app (start-mintlink.ts). */
async function main(): Promise<void> {
  const started = performance.now();
  loadDotEnv();
  const loaded = loadConfig(process.env);
  if (!loaded.ok) {
    process.stderr.write(`${loaded.message}\n`);
    process.exit(1);
  }
  const { config } = loaded;
  const scrub = createSecretScrubber(configSecrets(config));
  const logger = createLogger({ level: config.logLevel, scrub });
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

/** Operator commands run from this same artifact (`node dist/mintlink.mjs doctor`); with none, the app. */
const [command, ...args] = process.argv.slice(2);
if (command === 'doctor') process.exitCode = await runDoctorCommand(args);
else await main();
