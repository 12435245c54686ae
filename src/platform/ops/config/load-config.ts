import { existsSync } from 'node:fs';
import {
  DEFAULT_SQLITE_PATH,
  configHints,
  configVariables,
  environmentSchema,
  type ConfigVariable,
  type Environment,
} from './config-schema.js';
import { BULK_PACE, bulkPaceOf, type Config } from './config.js';

export type ConfigResult = { ok: true; config: Config } | { ok: false; message: string };

/** Reads `.env` into process.env when present; variables already set in the environment win. */
export function loadDotEnv(path = '.env'): void {
  if (existsSync(path)) process.loadEnvFile(path);
}

/**
 * Validates the environment once. On any problem, returns ONE message listing every missing or invalid
 * variable with a hint, and never a value (several are secrets). `refusal` opens the message: what cannot go
 * on (the app's start, or an operator's command naming itself).
 */
export function loadConfig(env: NodeJS.ProcessEnv, refusal = 'Mintlink cannot start'): ConfigResult {
  const raw: Partial<Record<ConfigVariable, string>> = {};
  for (const name of configVariables) {
    const value = env[name]?.trim();
    if (value) raw[name] = value; // `NAME=` in a .env file means unset
  }

  const problems = new Map<ConfigVariable, string>();
  const parsed = environmentSchema.safeParse(raw);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      // eslint-disable-next-line @typescript-eslint/consistent-type-assertions -- zod's issue path of the config schema's object starts with one of its own keys
      const name = issue.path[0] as ConfigVariable;
      if (!problems.has(name)) problems.set(name, issue.message);
    }
  }
  if (!raw.SLACK_APP_TOKEN && !raw.SLACK_SIGNING_SECRET) {
    problems.set(
      'SLACK_SIGNING_SECRET',
      raw.SLACK_CLIENT_ID
        ? 'is not set, and distribution mode needs it (it runs in HTTP mode, where Slack signs every request)'
        : 'is not set, and HTTP mode needs it (set SLACK_APP_TOKEN instead for Socket Mode)',
    );
  }

  distributionProblems(raw, problems);

  const port = Number(raw.PORT ?? 3000);
  if (!problems.has('METRICS_PORT') && raw.METRICS_PORT && Number(raw.METRICS_PORT) === port) {
    problems.set('METRICS_PORT', `must differ from PORT (${port}), which serves Slack requests, /healthz and /readyz`);
  }
  if (!problems.has('HOST') && raw.HOST && raw.SLACK_APP_TOKEN) {
    // Bolt's Socket Mode receiver listens on PORT with no address of its own to give.
    problems.set('HOST', 'has no effect in Socket Mode (its listener on PORT binds every interface): unset it');
  }
  if (!problems.has('METRICS_HOST') && raw.METRICS_HOST && !raw.METRICS_PORT) {
    problems.set('METRICS_HOST', 'has no effect without METRICS_PORT');
  }
  if (!problems.has('MINT_API_BASE_URL_PER_WORKSPACE') && raw.MINT_API_BASE_URL_PER_WORKSPACE === 'true') {
    if (!DISTRIBUTION_VARIABLES.every((name) => raw[name]))
      problems.set(
        'MINT_API_BASE_URL_PER_WORKSPACE',
        'has no effect in single-workspace mode (the one Mint account is MINT_API_KEY at MINT_API_BASE_URL): unset it',
      );
  }

  if (parsed.success) quorumProblems(parsed.data, problems);

  if (!parsed.success || problems.size > 0) {
    const lines = configVariables
      .filter((name) => problems.has(name))
      .map((name) => `  - ${name} ${problems.get(name)}.\n      Hint: ${configHints[name]}`);
    return {
      ok: false,
      message: [
        `${refusal}: ${problems.size} configuration problem${problems.size === 1 ? '' : 's'}.`,
        ...lines,
        'Set these in the environment or in a .env file (see .env.example).',
      ].join('\n'),
    };
  }

  const e = parsed.data;
  const distribution =
    e.SLACK_CLIENT_ID && e.SLACK_CLIENT_SECRET && e.SLACK_STATE_SECRET
      ? { clientId: e.SLACK_CLIENT_ID, clientSecret: e.SLACK_CLIENT_SECRET, stateSecret: e.SLACK_STATE_SECRET }
      : undefined;
  const approvers = e.DELETION_APPROVERS ?? [];
  const viewers = e.AUDIT_VIEWERS ?? approvers;
  return {
    ok: true,
    config: {
      mode: e.SLACK_APP_TOKEN ? 'socket' : 'http',
      slack: {
        botToken: e.SLACK_BOT_TOKEN,
        keySource: e.SLACK_BOT_TOKEN ?? e.SLACK_SIGNING_SECRET ?? '',
        signingSecret: e.SLACK_SIGNING_SECRET,
        appToken: e.SLACK_APP_TOKEN,
        apiUrl: e.SLACK_API_URL.endsWith('/') ? e.SLACK_API_URL : `${e.SLACK_API_URL}/`,
        publicUrl: e.PUBLIC_URL,
      },
      distribution,
      secretKeys: e.SECRETS_KEYS ?? [],
      port: e.PORT,
      host: e.HOST,
      metrics: { token: e.METRICS_TOKEN, port: e.METRICS_PORT, host: e.METRICS_HOST ?? '0.0.0.0' },
      mint: { baseUrl: e.MINT_API_BASE_URL, apiKey: e.MINT_API_KEY, timeoutMs: e.MINT_API_TIMEOUT_MS },
      mintBaseUrlPerWorkspace: e.MINT_API_BASE_URL_PER_WORKSPACE,
      store: e.DATABASE_URL ?? { engine: 'sqlite', path: DEFAULT_SQLITE_PATH },
      deletion: {
        approvalChannelId: e.APPROVAL_CHANNEL_ID,
        approvers: byKind(approvers),
        requestTtlHours: e.DELETION_REQUEST_TTL_HOURS,
        quorum: {
          approvals: e.DELETION_QUORUM,
          large:
            e.DELETION_QUORUM_LARGE !== undefined && e.DELETION_LARGE_AT !== undefined
              ? { approvals: e.DELETION_QUORUM_LARGE, fromCustomers: e.DELETION_LARGE_AT }
              : undefined,
        },
        remindAfterHours: e.DELETION_REMIND_AFTER_HOURS,
      },
      audit: {
        viewers: byKind(viewers),
        viewersAreApprovers: e.AUDIT_VIEWERS === undefined,
        retentionDays: e.AUDIT_RETENTION_DAYS,
      },
      history: { scanRows: e.HISTORY_SCAN_ROWS },
      settings: { admins: byKind(e.SETTINGS_ADMINS ?? []), source: e.SETTINGS_SOURCE },
      testClockOffsetHours: e.TEST_CLOCK_OFFSET_HOURS ?? 0,
      maxWorkInFlight: e.MAX_WORK_IN_FLIGHT,
      bulk: {
        concurrency: e.BULK_CONCURRENCY,
        checkSlots: e.BULK_CHECK_SLOTS,
        testPaceMs: e.TEST_BULK_PACE_MS,
        pace: e.TEST_BULK_PACE_MS === undefined ? BULK_PACE : bulkPaceOf(e.TEST_BULK_PACE_MS),
      },
      logLevel: e.LOG_LEVEL,
      logFormat: e.LOG_FORMAT,
    },
  };
}

const DISTRIBUTION_VARIABLES = ['SLACK_CLIENT_ID', 'SLACK_CLIENT_SECRET', 'SLACK_STATE_SECRET'] as const;

/**
 * Distribution mode is on when its three variables are set: then it needs SECRETS_KEYS and HTTP mode (Slack
 * redirects installers' browsers to the app), and has no single bot token. Otherwise the bot token is needed.
 */
function distributionProblems(
  raw: Partial<Record<ConfigVariable, string>>,
  problems: Map<ConfigVariable, string>,
): void {
  const set = DISTRIBUTION_VARIABLES.filter((name) => raw[name]);
  if (set.length === 0) {
    if (!raw.SLACK_BOT_TOKEN)
      problems.set('SLACK_BOT_TOKEN', 'is not set (or set SLACK_CLIENT_ID and the others for distribution mode)');
    if (!raw.MINT_API_KEY && !problems.has('MINT_API_KEY')) problems.set('MINT_API_KEY', 'is not set');
    return;
  }
  if (set.length < DISTRIBUTION_VARIABLES.length) {
    for (const name of DISTRIBUTION_VARIABLES.filter((n) => !raw[n]))
      problems.set(name, `is not set, and distribution mode needs it with ${set.join(' and ')}`);
    return;
  }
  if (raw.SLACK_BOT_TOKEN)
    problems.set(
      'SLACK_BOT_TOKEN',
      'must be unset in distribution mode (SLACK_CLIENT_ID is set): each workspace gets its own token when it installs the app',
    );
  if (raw.SLACK_APP_TOKEN)
    problems.set(
      'SLACK_APP_TOKEN',
      'must be unset in distribution mode: installs need HTTP mode (Slack sends installers back to /slack/oauth_redirect)',
    );
  if (raw.MINT_API_KEY && !problems.has('MINT_API_KEY'))
    problems.set(
      'MINT_API_KEY',
      'must be unset in distribution mode: each workspace connects its own Mint account in App Home, and no workspace may use the operator’s',
    );
  if (raw.SETTINGS_ADMINS && !problems.has('SETTINGS_ADMINS'))
    problems.set(
      'SETTINGS_ADMINS',
      "must be unset in distribution mode: it would let these people change every customer workspace's settings and Mint account (each workspace's admins and owners, and whom they name in Settings, administer it)",
    );
  if (raw.SETTINGS_SOURCE === 'env' && !problems.has('SETTINGS_SOURCE'))
    problems.set(
      'SETTINGS_SOURCE',
      'must be slack (or unset) in distribution mode: each workspace administers its own settings in Slack',
    );
  if (!raw.SECRETS_KEYS && !problems.has('SECRETS_KEYS'))
    problems.set('SECRETS_KEYS', 'is not set, and distribution mode needs it to seal the tokens it stores');
}

/** Slack ids split into users (U.../W...) and user groups (S...). */
function byKind(ids: readonly string[]): { users: string[]; userGroups: string[] } {
  return { users: ids.filter((id) => !id.startsWith('S')), userGroups: ids.filter((id) => id.startsWith('S')) };
}

/**
 * A quorum that could never be met is refused at start: the large quorum needs its threshold (and the other
 * way round) and is never below the normal one; approvers named one by one, without a user group, must be
 * enough people to reach it.
 */
function quorumProblems(e: Environment, problems: Map<ConfigVariable, string>): void {
  const large = e.DELETION_QUORUM_LARGE;
  if (large !== undefined && e.DELETION_LARGE_AT === undefined)
    problems.set('DELETION_LARGE_AT', 'is not set, and DELETION_QUORUM_LARGE needs it (from how many customers up)');
  if (large === undefined && e.DELETION_LARGE_AT !== undefined)
    problems.set('DELETION_QUORUM_LARGE', 'is not set, and DELETION_LARGE_AT needs it (how many approvals then)');
  if (large !== undefined && large < e.DELETION_QUORUM)
    problems.set('DELETION_QUORUM_LARGE', `must be at least DELETION_QUORUM (${e.DELETION_QUORUM})`);
  const approvers = e.DELETION_APPROVERS ?? [];
  const most = Math.max(e.DELETION_QUORUM, large ?? 0);
  if (approvers.length > 0 && approvers.every((id) => !id.startsWith('S')) && approvers.length < most) {
    const which = most === e.DELETION_QUORUM ? 'DELETION_QUORUM' : 'DELETION_QUORUM_LARGE';
    problems.set(
      which,
      `is ${most}, but DELETION_APPROVERS names ${approvers.length} approver${approvers.length === 1 ? '' : 's'} and no user group: no request could ever get ${most} approvals`,
    );
  }
}
