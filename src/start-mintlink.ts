import type { InstallationStore } from '@slack/bolt';
import { setTimeout as sleep } from 'node:timers/promises';
import { WorkBudget } from './platform/slack/admission/work-budget.js';
import { createApp } from './app.js';
import type { Config } from './platform/ops/config/config.js';
import { metricsResponder } from './platform/ops/health/metrics-access.js';
import { startMetricsListener, type MetricsListener } from './platform/ops/health/metrics-listener.js';
import { describeDatabaseError } from './platform/ops/lifecycle/database-error.js';
import { Readiness } from './platform/ops/health/readiness.js';
import { describeSlackStartError } from './platform/ops/lifecycle/slack-start-error.js';
import { SqliteFileError } from './platform/ops/lifecycle/sqlite-file-problem.js';
import type { Logger } from './platform/ops/telemetry/create-logger.js';
import type { Scrubber } from './platform/ops/telemetry/secret-scrubber.js';
import { createMetrics } from './platform/ops/telemetry/metrics.js';
import { MintApiClient } from './platform/mint/mint-api-client.js';
import { keyIdSecret, MintCallRecorder, OPERATOR_ACCOUNT } from './tenancy/mint-accounts/mint-call-recorder.js';
import { slackCallHooks } from './platform/ops/telemetry/slack-call-hooks.js';
import { openStore, type Store } from './platform/store/store.js';
import type { TestSeams } from './test-seams.js';
import { errorMessage } from './platform/unknown-fields.js';

/** How long stopping waits for work in flight before closing anyway. */
const SHUTDOWN_GRACE_MS = 10_000;

export interface RunningMintlink {
  /** Where /metrics is served when METRICS_PORT is set (0 picks a free port). */
  metricsPort: number | undefined;
  /** Whether the database was ready when the app started taking requests. */
  ready: boolean;
  /**
   * Stops taking requests, waits for the work in flight (at most SHUTDOWN_GRACE_MS), stops the background
   * work and closes every connection. Resolves when everything has stopped.
   */
  stop(why?: { signal: NodeJS.Signals }): Promise<void>;
  /** The requests and background work running now (what `mintlink_work_in_flight` reports). */
  workInFlight(): number;
  /** The app's own store (a test started in-process reads what the app recorded through it). */
  store: Store;
  /**
   * Distribution mode: the installation store Bolt's OAuth flow writes to (a test started in-process stores
   * a workspace's installation there as the flow does); undefined with one bot token.
   */
  installations: InstallationStore | undefined;
}

export type StartOutcome = { ok: true; app: RunningMintlink } | { ok: false; reason: string };

/**
 * Builds the shared parts once, checks the Slack token, applies the migrations (retried in the background
 * while the database is away), and starts taking Slack's requests and running the background work. What
 * belongs to the process (the environment, signals, exit codes, tracing) is main()'s; this is the part tests
 * start in-process, on a spare port, the same way, giving `seams` in place of some of the system's parts
 * (main() gives none).
 */
export async function startMintlink(
  given: Config,
  logger: Logger,
  scrub: Scrubber,
  seams: TestSeams = {},
): Promise<StartOutcome> {
  const config = quickened(given, seams);
  const work = new WorkBudget(config.maxWorkInFlight);
  let store: Store;
  try {
    store = openStore(config.store, logger, scrub, { turns: seams.sqliteTurns });
  } catch (error) {
    // An SQLite path that cannot be used (a directory, not a database, no permission, read-only): one line.
    if (error instanceof SqliteFileError) return { ok: false, reason: error.withHint };
    throw error;
  }
  const metrics = createMetrics({
    workInFlight: () => work.count,
    deletionRequestsByStatus: () => store.deletionRequests.countByStatus(),
  });
  const describeError = (error: unknown) => describeDatabaseError(error, config.store);
  const readiness = new Readiness(store, scrub, work, describeError);
  // The operator's one Mint account (single-workspace mode); in distribution mode each workspace connects its own.
  const { apiKey } = config.mint;
  const mintCalls = new MintCallRecorder(store.mintCallOutcomes, logger, keyIdSecret(config));
  const mintApi = apiKey
    ? new MintApiClient({
        ...config.mint,
        apiKey,
        scrub,
        metrics,
        logger: logger.child({ component: 'mint-api' }),
        onCallEnded: mintCalls.forAccount(OPERATOR_ACCOUNT, apiKey),
        ...(seams.mintRetryBaseDelayMs === undefined ? {} : { retryBaseDelayMs: seams.mintRetryBaseDelayMs }),
        ...(seams.mintBreaker ? { breaker: seams.mintBreaker } : {}),
      })
    : undefined;
  const deps = {
    config,
    logger,
    scrub,
    metrics,
    store,
    mintApi,
    readiness,
    work,
    mintCalls,
    slackCalls: slackCallHooks({ scrub, metrics }, seams.slack),
  };
  const { app, start, stop, installations, prepare, startBackgroundWork } = createApp(deps, seams);
  const closeAll = async () => {
    await mintApi?.close().catch(() => undefined);
    await mintCalls.flush();
    await store.close().catch(() => undefined);
  };
  const failed = async (reason: string): Promise<StartOutcome> => {
    await closeAll();
    return { ok: false, reason };
  };

  try {
    await app.init(); // auth.test: a wrong bot token stops here with a clear message
  } catch (error) {
    return failed(describeSlackStartError(error, 'SLACK_BOT_TOKEN', config.slack.apiUrl));
  }

  // The first attempt comes before taking requests (milliseconds on SQLite); if the database is down, the
  // app still starts, /readyz says why, and the attempts go on in the background until it answers.
  const migrations = new AbortController();
  const migrate = () => migrateOnce(store, readiness, logger, describeError);
  const ready = await migrate();
  const migrating = ready
    ? Promise.resolve()
    : migrateUntilDone(migrate, migrations.signal, logger, seams.migrationRetryFirstWaitMs);
  await prepare();
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
      migrations.abort();
      await migrating;
      const where = `${config.metrics.host}:${config.metrics.port}`;
      return failed(`Could not listen on METRICS_PORT at ${where} (${errorMessage(error)}).`);
    }
  }
  try {
    await start();
  } catch (error) {
    migrations.abort();
    await migrating;
    await metricsListener?.close();
    const token = config.mode === 'socket' ? 'SLACK_APP_TOKEN' : 'SLACK_BOT_TOKEN';
    return failed(
      config.mode === 'http'
        ? `Could not listen on ${config.host === undefined ? 'port ' : `${config.host}:`}${config.port} (${errorMessage(error)}).`
        : describeSlackStartError(error, token, config.slack.apiUrl),
    );
  }
  const stopBackgroundWork = startBackgroundWork();
  let stopped: Promise<void> | undefined;
  const stopAll = async (why?: { signal: NodeJS.Signals }) => {
    logger.info({ ...why, workInFlight: work.count }, 'shutting down');
    readiness.markStopping();
    migrations.abort();
    await stop().catch((error: unknown) => logger.warn({ err: error }, 'receiver did not stop cleanly'));
    const finished = await work.idle(SHUTDOWN_GRACE_MS);
    if (!finished) logger.warn({ workInFlight: work.count }, 'shutdown grace period over with work still running');
    await migrating;
    await stopBackgroundWork();
    await metricsListener?.close();
    await closeAll();
  };
  return {
    ok: true,
    app: {
      metricsPort: metricsListener?.port,
      ready,
      stop: (why) => (stopped ??= stopAll(why)),
      workInFlight: () => work.count,
      store,
      installations,
    },
  };
}

/**
 * The configuration with a test's quicker bulk pace (its seam) in it: the bulk capability reads its pace from the
 * configuration alone, as it reads TEST_BULK_PACE_MS's, and never sees a seam.
 */
function quickened(config: Config, seams: TestSeams): Config {
  const { bulkPace } = seams;
  return bulkPace ? { ...config, bulk: { ...config.bulk, pace: { ...config.bulk.pace, ...bulkPace } } } : config;
}

async function migrateOnce(
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

/**
 * Retries the migrations with backoff (1 s, 2 s, 4 s... up to 30 s between attempts) until the database answers
 * or the app stops.
 */
async function migrateUntilDone(
  migrate: () => Promise<boolean>,
  stopped: AbortSignal,
  logger: Logger,
  firstWaitMs = 1_000,
): Promise<void> {
  for (let attempt = 1; ; attempt += 1) {
    // At least 10 ms: a seam given 0 would otherwise retry without a pause.
    const wait = Math.min(30_000, Math.max(10, firstWaitMs) * 2 ** (attempt - 1));
    const waited = await sleep(wait, true, { signal: stopped }).catch(() => false);
    if (!waited) return;
    if (await migrate()) return void logger.info({ attempt }, 'database ready');
  }
}
