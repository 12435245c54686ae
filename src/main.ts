import { setTimeout as sleep } from 'node:timers/promises';
import { WorkBudget } from './admission/work-budget.js';
import { createApp } from './app.js';
import { configSecrets } from './config/config.js';
import { loadConfig, loadDotEnv } from './config/load-config.js';
import { metricsResponder } from './health/metrics-access.js';
import { startMetricsListener, type MetricsListener } from './health/metrics-listener.js';
import { describeDatabaseError } from './lifecycle/database-error.js';
import { Readiness } from './lifecycle/readiness.js';
import { describeSlackStartError } from './lifecycle/slack-start-error.js';
import { SqliteFileError } from './lifecycle/sqlite-file-problem.js';
import { createLogger, type Logger } from './logging/create-logger.js';
import { createSecretScrubber } from './logging/secret-scrubber.js';
import { createMetrics } from './metrics/metrics.js';
import { startTracing } from './observability/tracing.js';
import { MintApiClient } from './mint-api/mint-api-client.js';
import { openStore, type Store } from './store/store.js';

/** How long shutdown waits for work in flight before closing anyway. */
const SHUTDOWN_GRACE_MS = 10_000;

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
  const work = new WorkBudget(config.maxWorkInFlight);
  const metrics = createMetrics({
    workInFlight: () => work.count,
    deletionRequestsByStatus: () => store.deletionRequests.countByStatus(),
  });
  let store: Store;
  try {
    store = openStore(config.store, logger, scrub);
  } catch (error) {
    // An SQLite path that cannot be used (a directory, not a database, no permission, read-only): one line.
    if (error instanceof SqliteFileError) return fail(logger, error.withHint);
    throw error;
  }
  const describeError = (error: unknown) => describeDatabaseError(error, config.store);
  const readiness = new Readiness(store, scrub, work, describeError);
  const mintApi = new MintApiClient({
    ...config.mint,
    scrub,
    metrics,
    logger: logger.child({ component: 'mint-api' }),
  });
  const { app, start, stop, startBackgroundWork } = createApp({
    config,
    logger,
    scrub,
    metrics,
    store,
    mintApi,
    readiness,
    work,
  });

  try {
    await app.init(); // auth.test: a wrong bot token stops here with a clear message
  } catch (error) {
    return fail(logger, describeSlackStartError(error, 'SLACK_BOT_TOKEN', config.slack.apiUrl), store);
  }

  // The first attempt comes before taking requests (milliseconds on SQLite); if the database is down, the
  // app still starts, /readyz says why, and the attempts go on in the background.
  if (!(await migrate(store, readiness, logger, describeError)))
    void migrateUntilDone(store, readiness, logger, describeError);
  let metricsListener: MetricsListener | undefined;
  if (config.metrics.port !== undefined) {
    try {
      metricsListener = await startMetricsListener({
        port: config.metrics.port,
        host: config.metrics.host,
        serve: metricsResponder(metrics, config.metrics.token),
        logger,
      });
    } catch (error) {
      const where = `${config.metrics.host}:${config.metrics.port}`;
      return fail(logger, `Could not listen on METRICS_PORT at ${where} (${(error as Error).message}).`, store);
    }
  }
  try {
    await start();
  } catch (error) {
    const token = config.mode === 'socket' ? 'SLACK_APP_TOKEN' : 'SLACK_BOT_TOKEN';
    const reason =
      config.mode === 'http'
        ? `Could not listen on port ${config.port} (${(error as Error).message}).`
        : describeSlackStartError(error, token, config.slack.apiUrl);
    return fail(logger, reason, store);
  }
  const stopBackgroundWork = startBackgroundWork();
  let stopping = false;
  const shutdown = async (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal, workInFlight: work.count }, 'shutting down');
    readiness.markStopping();
    await stop().catch((error: unknown) => logger.warn({ err: error }, 'receiver did not stop cleanly'));
    const finished = await work.idle(SHUTDOWN_GRACE_MS);
    if (!finished) logger.warn({ workInFlight: work.count }, 'shutdown grace period over with work still running');
    await stopBackgroundWork();
    await metricsListener?.close();
    await mintApi.close().catch(() => undefined);
    await stopTracing();
    await store.close().catch(() => undefined);
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
      metricsPort: metricsListener?.port,
      store: config.store.engine,
      ready: readiness.isMigrated,
      ms: Math.round(performance.now() - started),
    },
    `mintlink started in ${config.mode === 'socket' ? 'Socket Mode' : 'HTTP mode'}`,
  );
}

async function migrate(
  store: Store,
  readiness: Readiness,
  logger: Logger,
  describeError: (error: unknown) => string,
): Promise<boolean> {
  try {
    await store.migrate();
    readiness.markMigrated();
    return true;
  } catch (error) {
    readiness.markMigrationFailed(error);
    const reason = describeError(error);
    logger.error({ err: error, reason }, `database not ready: ${reason}`);
    return false;
  }
}

/** Retries the migrations with backoff until the database answers; /readyz says why meanwhile. */
async function migrateUntilDone(
  store: Store,
  readiness: Readiness,
  logger: Logger,
  describeError: (error: unknown) => string,
): Promise<void> {
  for (let attempt = 1; ; attempt += 1) {
    await sleep(Math.min(30_000, 500 * 2 ** attempt));
    if (await migrate(store, readiness, logger, describeError)) {
      logger.info({ attempt }, 'database ready');
      return;
    }
  }
}

async function fail(logger: Logger, message: string, store?: Store): Promise<never> {
  logger.fatal(message);
  await store?.close().catch(() => undefined);
  process.exit(1);
}

function watchProcessErrors(logger: Logger): void {
  process.on('unhandledRejection', (reason) => logger.error({ err: reason }, 'unhandled promise rejection'));
  process.on('uncaughtException', (error) => {
    logger.fatal({ err: error }, 'uncaught exception; exiting');
    process.exit(1);
  });
}

await main();
