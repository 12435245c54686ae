/*
 * What a test may give the app in place of the system's own parts. main() never gives any: in production this
 * object is empty. Only the wiring (start-mintlink.ts, app.ts) reads it, and hands each part to the one place
 * that uses it, so that what a capability is given (deps.ts) holds real parts only. Types only.
 */
import type { BulkPace } from './platform/ops/config/config.js';
import type { MintCircuitOptions } from './platform/mint/circuit.js';
import type { HostResolver } from './platform/mint/public-address.js';
import type { SlackInProcess } from './platform/slack/slack-in-process.js';
import type { SqliteFileTurns } from './platform/store/sqlite-dialect.js';

export interface TestSeams {
  /** Slack in the test's process: Bolt's requests from its receiver, the Web API calls to its fetch. */
  slack?: SlackInProcess;
  /** The Mint client's first wait before trying a call again (250 ms in the app). */
  mintRetryBaseDelayMs?: number;
  /** Resolves the hosts of workspaces' own Mint base URLs, so that no test needs DNS (the system's resolver in the app). */
  resolveHost?: HostResolver;
  /** How long the operator's Mint client's circuit stays open (10 s in the app): tests shorten it rather than wait. */
  mintBreaker?: Partial<MintCircuitOptions>;
  /**
   * The bulk jobs' pace (progress every 2 s, the worker's 1 s poll): tests quicken it rather than wait. Merged
   * into the config's (`config.bulk.pace`) at start, where the bulk capability reads it.
   */
  bulkPace?: Partial<BulkPace>;
  /**
   * How far ahead of the database's clock the deletion reminders judge what is due, read at each sweep
   * (TEST_CLOCK_OFFSET_HOURS, fixed, in the app): a test moves time on in the app it runs rather than start
   * another whose clock runs ahead.
   */
  remindersAheadMs?: () => number;
  /**
   * The first wait before trying the migrations again when the database did not answer at start (1 s in the app,
   * doubling up to 30 s): tests shorten it rather than wait for a database brought back.
   */
  migrationRetryFirstWaitMs?: number;
  /** Periods of background jobs by job name (the deletion sweeper's, the reminders'): tests quicken them rather than wait. */
  quickenedJobs?: Readonly<Record<string, number>>;
  /**
   * The turns taken by this process's connections to each SQLite file, shared with the test's own stores on the
   * app's file and with the other replicas it starts in its process (the app's store has turns of its own otherwise).
   */
  sqliteTurns?: SqliteFileTurns;
}
