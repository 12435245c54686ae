import type { SecretKey } from '../../secrets/secret-box.js';
import type { StoreLocation } from './config-schema.js';

export type LogLevelName = 'debug' | 'info' | 'warn' | 'error';

export interface DeletionApprovers {
  /** U.../W... ids allowed to decide. */
  users: string[];
  /** S... user groups whose members may decide. */
  userGroups: string[];
}

/** How many approvals a deletion request needs: `approvals`, or `large.approvals` from `large.fromCustomers` up. */
export interface DeletionQuorum {
  approvals: number;
  large: { approvals: number; fromCustomers: number } | undefined;
}

/** How often bulk jobs' background work looks again, and the least time between two updates of a progress message. */
export interface BulkPace {
  progressGapMs: number;
  progressTickMs: number;
  workerPollMs: number;
}

/**
 * A pace whose progress message is updated at most every `progressGapMs`, offered an update every quarter of it;
 * the worker looks for jobs, lost rows and jobs to finish every half of it.
 */
export function bulkPaceOf(progressGapMs: number): BulkPace {
  return { progressGapMs, progressTickMs: progressGapMs / 4, workerPollMs: progressGapMs / 2 };
}

/**
 * The app's pace: a progress message updated at most every 2 s (Slack's chat.update is Tier 3, about 50 a
 * minute), offered an update every 500 ms; the worker looks for jobs, lost rows and jobs to finish every second.
 */
export const BULK_PACE: BulkPace = bulkPaceOf(2_000);

/** The validated configuration, read once at start. */
export interface Config {
  mode: 'socket' | 'http';
  slack: {
    /** Single-workspace mode's one bot token; undefined in distribution mode (each installation has its own). */
    botToken: string | undefined;
    /**
     * What the key after SECRETS_KEYS' (decision metadata, sealed workflow tokens) is derived from: the bot
     * token in single-workspace mode, the signing secret in distribution mode. The only key when SECRETS_KEYS
     * is unset; otherwise what opens and verifies what was sealed and signed with it before.
     */
    keySource: string;
    /** Present in HTTP mode (required there); optional in Socket Mode. */
    signingSecret: string | undefined;
    /** Present in Socket Mode. */
    appToken: string | undefined;
    apiUrl: string;
    /** HTTP mode: the https address Slack sends requests to (PUBLIC_URL), when the operator gives it. */
    publicUrl: string | undefined;
  };
  /**
   * Distribution mode ("Add to Slack" in many workspaces, Bolt's OAuth flow), on when SLACK_CLIENT_ID,
   * SLACK_CLIENT_SECRET and SLACK_STATE_SECRET are set; undefined in single-workspace mode.
   */
  distribution: { clientId: string; clientSecret: string; stateSecret: string } | undefined;
  /** SECRETS_KEYS, newest first (empty when unset): what seals the secrets stored in the database. */
  secretKeys: SecretKey[];
  port: number;
  /** The address the HTTP mode listener binds to; undefined: every interface (Node's default, IPv6 and IPv4). */
  host: string | undefined;
  /** /metrics: who may read it and where it is served. */
  metrics: {
    /** When set, /metrics needs `Authorization: Bearer <token>`. */
    token: string | undefined;
    /** When set, /metrics is served only on a listener of its own on this port, no longer on `port`. */
    port: number | undefined;
    /** The address that listener binds to. */
    host: string;
  };
  /** The operator's Mint account: every workspace's in single-workspace mode. */
  /** `apiKey`: the one account of single-workspace mode; undefined in distribution mode (each workspace has its own). */
  mint: { baseUrl: string; apiKey: string | undefined; timeoutMs: number };
  /**
   * Distribution mode: whether a workspace connecting its Mint account may give its own base URL
   * (MINT_API_BASE_URL_PER_WORKSPACE); otherwise every account is reached at `mint.baseUrl`.
   */
  mintBaseUrlPerWorkspace: boolean;
  store: StoreLocation;
  deletion: {
    approvalChannelId: string | undefined;
    approvers: DeletionApprovers;
    requestTtlHours: number;
    /** Approvals a request needs (the requester never counts). */
    quorum: DeletionQuorum;
    /** A pending request gets one reminder this many hours after it was made; 0: never. */
    remindAfterHours: number;
  };
  audit: {
    /** Who may export the audit log (by default, the deletion approvers). */
    viewers: DeletionApprovers;
    /** True when AUDIT_VIEWERS is unset: the viewers are whoever the approvers are. */
    viewersAreApprovers: boolean;
    /** Entries older than this many days are pruned; undefined keeps everything. */
    retentionDays: number | undefined;
  };
  /**
   * History: rows a page examines at most (HISTORY_SCAN_ROWS) before it shows what it found and where its search
   * stopped (two words common but seldom on one row would otherwise read one word's rows until a page fills).
   */
  history: { scanRows: number };
  /** Who administers the settings in Slack, and whether they may (SETTINGS_SOURCE). */
  settings: {
    /** SETTINGS_ADMINS; empty: the workspace's admins and owners. */
    admins: DeletionApprovers;
    /** `slack`: App Home changes them over the environment's defaults; `env`: the environment only. */
    source: 'slack' | 'env';
  };
  /** Tests only: the reminders' clock runs this many hours ahead (0 in production). */
  testClockOffsetHours: number;
  /** Work in progress beyond which new commands are turned away with a "busy" answer. */
  maxWorkInFlight: number;
  /**
   * Bulk jobs: how many of their Mint calls one process makes at once, and how many CSV files it checks
   * at once (each Check holds its file and reads its table: a few at a time bound the memory they take).
   */
  /**
   * `testPaceMs`: TEST_BULK_PACE_MS, a quicker bulk pace for a test's app process; `pace`: the pace the bulk jobs
   * run at, BULK_PACE unless TEST_BULK_PACE_MS (or a test's seam, TestSeams.bulkPace) quickens it.
   */
  bulk: { concurrency: number; checkSlots: number; testPaceMs?: number | undefined; pace: BulkPace };
  logLevel: LogLevelName;
  /** LOG_FORMAT: unset means readable lines when standard output is a terminal, JSON otherwise. */
  logFormat: 'json' | 'pretty' | undefined;
}

export type { StoreLocation };

/** Every secret value in the configuration: these are scrubbed from logs and messages. */
export function configSecrets(config: Config): string[] {
  const secrets = [
    config.slack.botToken,
    config.slack.signingSecret,
    config.slack.appToken,
    config.distribution?.clientSecret,
    config.distribution?.stateSecret,
    ...config.secretKeys.map((key) => key.bytes.toString('base64')),
    config.mint.apiKey,
    config.metrics.token,
  ];
  if (config.store.engine === 'postgres') {
    const password = new URL(config.store.url).password;
    if (password) secrets.push(decodeURIComponent(password), password);
  }
  return secrets.filter((s): s is string => typeof s === 'string' && s.length > 0);
}
