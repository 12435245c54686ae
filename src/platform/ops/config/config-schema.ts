import { isIP } from 'node:net';
import { z } from 'zod';
import { parseSecretKey, type SecretKey } from '../../secrets/secret-box.js';

/** Where to find each variable: printed next to any problem so the operator can fix it in one pass. */
export const configHints = {
  SLACK_BOT_TOKEN:
    'Bot User OAuth Token (xoxb-...): https://api.slack.com/apps -> your app -> OAuth & Permissions; leave unset in distribution mode (SLACK_CLIENT_ID and the others set), where each workspace gets its own at install',
  SLACK_SIGNING_SECRET:
    'https://api.slack.com/apps -> your app -> Basic Information -> App Credentials -> Signing Secret',
  SLACK_APP_TOKEN:
    'App-Level Token with the connections:write scope (xapp-...): Basic Information -> App-Level Tokens; leave unset for HTTP mode',
  SLACK_CLIENT_ID:
    'distribution mode (installed in many workspaces with "Add to Slack"): Basic Information -> App Credentials -> Client ID; set it with SLACK_CLIENT_SECRET, SLACK_STATE_SECRET and SECRETS_KEYS, and leave SLACK_BOT_TOKEN unset',
  SLACK_CLIENT_SECRET: 'distribution mode: Basic Information -> App Credentials -> Client Secret',
  SLACK_STATE_SECRET:
    'distribution mode: a random secret of at least 32 characters that signs the OAuth state of each install (e.g. the output of `openssl rand -hex 32`)',
  SECRETS_KEYS:
    'required in distribution mode, recommended in single-workspace mode: comma list of AES-256 keys, each the base64 of 32 random bytes (`openssl rand -base64 32`); the first seals the stored tokens and keys and signs the deletion decision forms, the others (older) still open and verify them; after adding a new key first, run `npm run secrets -- reseal`',
  PUBLIC_URL:
    'HTTP mode: the https address Slack sends requests to, e.g. https://mintlink.example.com (the URL given to `npm run manifest -- --http`); `npm run doctor` checks that it reaches the app; unset: not checked',
  SLACK_API_URL: 'leave unset for https://slack.com/api/ (GovSlack: https://slack-gov.com/api/)',
  PORT: 'a TCP port from 1 to 65535; default 3000',
  HOST: 'the address the PORT listener binds to in HTTP mode, e.g. 127.0.0.1 for this host only; unset: every interface, IPv6 and IPv4 (as Node listens by default)',
  METRICS_TOKEN:
    'when set, GET /metrics needs the header "Authorization: Bearer <token>"; at least 16 characters, no spaces (e.g. the output of `openssl rand -hex 32`); unset: /metrics is open',
  METRICS_PORT:
    'a TCP port from 1 to 65535, other than PORT; when set, /metrics is served only on this port (plain HTTP), no longer on PORT; unset: /metrics is on PORT',
  METRICS_HOST:
    'the address the METRICS_PORT listener binds to, e.g. 127.0.0.1 for this host only; default 0.0.0.0 (every IPv4 interface); needs METRICS_PORT',
  MINT_API_BASE_URL:
    'base URL of the Mint service, e.g. https://mint.example.com (the /v1/... paths are appended); to try the app locally run `npm run mock-api` and use http://127.0.0.1:4010',
  MINT_API_KEY:
    'the x-api-key issued by the Mint service operator (the mock service accepts MOCK_API_KEY, default "dev-key"); single-workspace mode only: in distribution mode each workspace connects its own Mint account in App Home',
  MINT_API_TIMEOUT_MS: 'milliseconds from 100 to 120000; default 10000',
  MINT_API_BASE_URL_PER_WORKSPACE:
    "distribution mode: true lets each workspace's admins give their own Mint service base URL when they connect their Mint account (https, or http to this host only), for a service with one address per customer or region; false (default): every workspace uses MINT_API_BASE_URL",
  DATABASE_URL:
    'postgres://user:password@host:5432/database, or file:PATH for SQLite; unset stores in SQLite under ./data/',
  APPROVAL_CHANNEL_ID:
    'id of the channel where deletion requests wait (C... or G...): channel name -> About -> Channel ID',
  DELETION_APPROVERS: 'comma list of user ids (U.../W...: profile -> More -> Copy member ID) and user-group ids (S...)',
  DELETION_REQUEST_TTL_HOURS: 'hours a deletion request waits for a decision, 1 to 720; default 72',
  DELETION_QUORUM: 'how many approvers (the requester never counts) must approve a deletion, 1 to 20; default 1',
  DELETION_QUORUM_LARGE:
    'approvals needed for a request of DELETION_LARGE_AT customers or more, 1 to 20, at least DELETION_QUORUM; set it together with DELETION_LARGE_AT',
  DELETION_LARGE_AT:
    'a count of customers, 1 to 1000: requests this large need DELETION_QUORUM_LARGE approvals; set it together with DELETION_QUORUM_LARGE',
  DELETION_REMIND_AFTER_HOURS:
    'hours, 0 to 720 (fractions allowed, e.g. 1.5), after which a pending deletion request gets one reminder in its approval thread; 0 turns reminders off; default 24',
  AUDIT_VIEWERS:
    'comma list of user ids (U.../W...) and user-group ids (S...) who may export the audit log; default: the deletion approvers',
  SETTINGS_ADMINS:
    "comma list of user ids (U.../W...) and user-group ids (S...) who may change the settings from App Home; default: the workspace's admins and owners (as Slack reports them)",
  SETTINGS_SOURCE:
    'slack (default): settings admins change the deletion and audit settings from App Home, the variables here being the defaults; env: these variables are the only source and the settings on App Home are read-only',
  AUDIT_RETENTION_DAYS: 'days the audit log keeps an entry, 1 to 36500; unset keeps everything',
  HISTORY_SCAN_ROWS:
    'rows a History page examines at most before it shows what it found and offers Keep searching, 1 to 10000000; default 5000',
  TEST_CLOCK_OFFSET_HOURS:
    'for tests only: the reminders run this many hours ahead of the real clock, 0 to 100000; leave unset in production',
  MAX_WORK_IN_FLIGHT:
    'Slack requests (commands, clicks, submissions, shortcuts, events) and background work in progress at once before new requests are answered "busy, try again"; at least 2 x BULK_CONCURRENCY; default 1000',
  LOG_LEVEL: 'debug, info, warn or error; default info',
  LOG_FORMAT:
    'json (one JSON object a line, for a log collector) or pretty (readable lines); unset: pretty when standard output is a terminal, json otherwise',
  BULK_CONCURRENCY:
    "Mint calls a workspace's bulk jobs (/mintlink bulk) make at once, all replicas together, a whole number from 1 to 50, at most half of MAX_WORK_IN_FLIGHT; default 4",
  BULK_CHECK_SLOTS:
    'bulk CSV files one process checks at once (the Check button of /mintlink bulk), a whole number from 1 to 8; a Check that finds them all taken is answered "busy, try again in a minute"; default 2',
  TEST_BULK_PACE_MS:
    "for tests only: the least milliseconds between two updates of a bulk job's progress message (the worker looks again every half of it), 20 to 2000; leave unset in production (2000)",
} as const;

export type ConfigVariable = keyof typeof configHints;
// eslint-disable-next-line @typescript-eslint/consistent-type-assertions -- Object.keys/zod's input are typed loosely: these are the schema's own keys and already-parsed values
export const configVariables = Object.keys(configHints) as ConfigVariable[];

/** Error text for a value that is absent or has the wrong shape; never echoes the value (it may be a secret). */
const text = (shape: string) =>
  z.string({ error: (issue) => (issue.input === undefined ? 'is not set' : `must be ${shape}`) });

const httpUrl = text('an http(s) URL').refine(
  (value) => URL.canParse(value) && /^https?:$/.test(new URL(value).protocol),
  'must be an http(s) URL',
);

const wholeNumber = (min: number, max: number) =>
  text(`a whole number from ${min} to ${max}`)
    .regex(/^\d+$/, `must be a whole number from ${min} to ${max}`)
    .transform(Number)
    .refine((n) => n >= min && n <= max, `must be a whole number from ${min} to ${max}`);

/** Hours as a decimal number (`24`, `1.5`, `0.001`) from `min` to `max`. */
const decimalHours = (min: number, max: number) =>
  text(`a number of hours from ${min} to ${max}`)
    .regex(/^\d+(\.\d+)?$/, `must be a number of hours from ${min} to ${max}`)
    .transform(Number)
    .refine((n) => n >= min && n <= max, `must be a number of hours from ${min} to ${max}`);

/** Where the SQLite database is kept while DATABASE_URL is unset (relative to the working directory). */
export const DEFAULT_SQLITE_PATH = 'data/mintlink.sqlite';

/** A bearer token as HTTP carries it (visible ASCII, no spaces), long enough not to be guessed. */
const bearerToken = text('at least 16 characters without spaces').regex(
  /^[\x21-\x7E]{16,}$/,
  'must be at least 16 characters without spaces',
);

/** An IP address or a host name to listen on. */
const listenHost = text('an IP address or a host name').refine(
  (value) =>
    isIP(value) !== 0 ||
    /^(?=.{1,253}$)[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)*$/.test(value),
  'must be an IP address or a host name',
);

export type StoreLocation = { engine: 'sqlite'; path: string } | { engine: 'postgres'; url: string };

const databaseUrl = text('postgres://... or file:PATH').transform((value, ctx): StoreLocation => {
  if (/^postgres(ql)?:\/\//.test(value) && URL.canParse(value)) return { engine: 'postgres', url: value };
  if (value.startsWith('file:') && value.length > 'file:'.length) return { engine: 'sqlite', path: value.slice(5) };
  ctx.addIssue({ code: 'custom', message: 'must start with postgres://, postgresql:// or file:' });
  return z.NEVER;
});

const PLACEHOLDER = 'is still the placeholder from .env.example';

/** The ids .env.example shows as examples (C0123456789, U0123456789, S0123456789): nobody's real ids. */
const EXAMPLE_ID = /^[CGUWS]0123456789$/;

const slackIdList = (pattern: RegExp, shape: string) =>
  text(shape).transform((value, ctx) => {
    const ids = value
      .split(',')
      .map((id) => id.trim())
      .filter(Boolean);
    const wrong = ids.filter((id) => !pattern.test(id));
    if (wrong.length > 0) {
      // Slack ids are not secret, and naming the wrong one saves a search.
      ctx.addIssue({ code: 'custom', message: `has ${wrong.map((id) => `"${id}"`).join(', ')}, expected ${shape}` });
      return z.NEVER;
    }
    const examples = ids.filter((id) => EXAMPLE_ID.test(id));
    if (examples.length > 0) {
      ctx.addIssue({
        code: 'custom',
        message: `has ${examples.map((id) => `"${id}"`).join(', ')}, ${PLACEHOLDER.replace('is ', '')}: put your own ids`,
      });
      return z.NEVER;
    }
    return ids;
  });

/** Words that make up a placeholder such as `xoxb-your-bot-token`, `xapp-<app-level token here>` or `your-signing-secret`. */
const PLACEHOLDER_WORDS = new Set(
  (
    'a an the your my our this here goes put paste insert fill in enter replace me with change changeme ' +
    'placeholder example sample dummy fake todo tbd fixme slack bot app level user oauth access token value xoxb xapp ' +
    'signing secret mint api key metrics bearer password'
  ).split(' '),
);

/** True for text made only of placeholder words, `x`s, dots or brackets (`your-signing-secret`, `<api key>`, `xxxx`). */
export function isPlaceholderText(value: string): boolean {
  const words = value
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
  return words.every((word) => PLACEHOLDER_WORDS.has(word) || /^x+$/.test(word));
}

/**
 * True for a Slack token that is only its prefix and placeholder words, `x`s, dots or brackets: the bare
 * `xoxb-` / `xapp-`, `xoxb-your-bot-token`, `xapp-...`, `xoxb-xxxxxxxx`, `xapp-1-XXXX`. Real tokens carry
 * numbers and random characters, so none of them is taken for a placeholder.
 */
export function isPlaceholderToken(value: string, prefix: 'xoxb-' | 'xapp-'): boolean {
  if (!value.toLowerCase().startsWith(prefix)) return false;
  let rest = value.slice(prefix.length).toLowerCase();
  // App-level tokens go on with their version, `xapp-1-...`: placeholders often keep it (`xapp-1-XXXX`).
  if (prefix === 'xapp-') rest = rest.replace(/^1(?![a-z0-9])/, '');
  return isPlaceholderText(rest);
}

/** A secret the operator pastes in: refused while it is still a placeholder (never echoed). */
const secretText = (replaceWith: string) =>
  text('text').refine((value) => !isPlaceholderText(value), `${PLACEHOLDER}: replace it with ${replaceWith}`);

/** SECRETS_KEYS: one or more AES-256 keys, newest first, each named once. */
const secretKeyList = text('a comma list of base64 keys of 32 bytes').transform((value, ctx) => {
  const texts = value
    .split(',')
    .map((key) => key.trim())
    .filter(Boolean);
  const keys = texts.map((text) => parseSecretKey(text));
  const wrong = keys.flatMap((key, i) => (key ? [] : [i + 1]));
  if (wrong.length > 0 || keys.length === 0) {
    // Positions only: the keys themselves are secrets.
    const which = wrong.length > 0 ? `key ${wrong.join(', ')} is` : 'no key is given, it';
    ctx.addIssue({ code: 'custom', message: `has a problem: ${which} not the base64 of 32 bytes` });
    return z.NEVER;
  }
  const found = keys.filter((key): key is SecretKey => key !== undefined);
  if (new Set(found.map((key) => key.id)).size !== found.length) {
    ctx.addIssue({ code: 'custom', message: 'lists the same key twice' });
    return z.NEVER;
  }
  return found;
});

const environmentFields = z.object({
  SLACK_BOT_TOKEN: text('a bot token starting with xoxb-')
    .startsWith('xoxb-', 'must be a bot token starting with xoxb-')
    .refine(
      (value) => !isPlaceholderToken(value, 'xoxb-'),
      `${PLACEHOLDER}: replace it with the Bot User OAuth Token (xoxb-...) of your Slack app`,
    )
    .optional(),
  SLACK_CLIENT_ID: text('the Client ID of your Slack app, such as 1234567890.1234567890')
    .regex(/^\d+\.\d+$/, 'must be the Client ID of your Slack app, such as 1234567890.1234567890')
    .optional(),
  SLACK_CLIENT_SECRET: secretText('the Client Secret of your Slack app').optional(),
  SLACK_STATE_SECRET: secretText('a random secret (openssl rand -hex 32)')
    .refine((value) => value.length >= 32, 'must be at least 32 characters (openssl rand -hex 32)')
    .optional(),
  SECRETS_KEYS: secretKeyList.optional(),
  SLACK_SIGNING_SECRET: secretText('the Signing Secret of your Slack app').optional(),
  SLACK_APP_TOKEN: text('an app-level token starting with xapp-')
    .startsWith('xapp-', 'must be an app-level token starting with xapp-')
    .refine(
      (value) => !isPlaceholderToken(value, 'xapp-'),
      `${PLACEHOLDER}: replace it with an App-Level Token (xapp-...) for Socket Mode, or leave it empty for HTTP mode`,
    )
    .optional(),
  PUBLIC_URL: httpUrl.optional(),
  SLACK_API_URL: httpUrl.default('https://slack.com/api/'),
  PORT: wholeNumber(1, 65535).default(3000),
  HOST: listenHost.optional(),
  METRICS_TOKEN: bearerToken
    .refine(
      (value) => !isPlaceholderText(value),
      `${PLACEHOLDER}: replace it with a random token (openssl rand -hex 32)`,
    )
    .optional(),
  METRICS_PORT: wholeNumber(1, 65535).optional(),
  METRICS_HOST: listenHost.optional(),
  MINT_API_BASE_URL: httpUrl,
  MINT_API_KEY: secretText('the API key the Mint service issued to you').optional(),
  MINT_API_TIMEOUT_MS: wholeNumber(100, 120_000).default(10_000),
  MINT_API_BASE_URL_PER_WORKSPACE: z
    .enum(['true', 'false'], { error: 'must be true or false' })
    .default('false')
    .transform((value) => value === 'true'),
  DATABASE_URL: databaseUrl.optional(),
  APPROVAL_CHANNEL_ID: text('a channel id such as C0123ABCD')
    .regex(/^[CG][A-Z0-9]{2,}$/, 'must be a channel id such as C0123ABCD')
    .refine((value) => !EXAMPLE_ID.test(value), `${PLACEHOLDER}: put the id of your approval channel`)
    .optional(),
  DELETION_APPROVERS: slackIdList(
    /^([UW][A-Z0-9]{2,}|S[A-Z0-9]{2,})$/,
    'user ids (U.../W...) or user-group ids (S...)',
  ).optional(),
  DELETION_REQUEST_TTL_HOURS: wholeNumber(1, 720).default(72),
  DELETION_QUORUM: wholeNumber(1, 20).default(1),
  DELETION_QUORUM_LARGE: wholeNumber(1, 20).optional(),
  DELETION_LARGE_AT: wholeNumber(1, 1000).optional(),
  DELETION_REMIND_AFTER_HOURS: decimalHours(0, 720).default(24),
  AUDIT_VIEWERS: slackIdList(
    /^([UW][A-Z0-9]{2,}|S[A-Z0-9]{2,})$/,
    'user ids (U.../W...) or user-group ids (S...)',
  ).optional(),
  SETTINGS_ADMINS: slackIdList(
    /^([UW][A-Z0-9]{2,}|S[A-Z0-9]{2,})$/,
    'user ids (U.../W...) or user-group ids (S...)',
  ).optional(),
  SETTINGS_SOURCE: z.enum(['slack', 'env'], { error: 'must be slack or env' }).default('slack'),
  AUDIT_RETENTION_DAYS: wholeNumber(1, 36_500).optional(),
  HISTORY_SCAN_ROWS: wholeNumber(1, 10_000_000).default(5_000),
  TEST_CLOCK_OFFSET_HOURS: decimalHours(0, 100_000).optional(),
  MAX_WORK_IN_FLIGHT: wholeNumber(1, 100_000).default(1_000),
  LOG_LEVEL: z
    .enum(['debug', 'info', 'warn', 'error'], { error: 'must be one of debug, info, warn, error' })
    .default('info'),
  LOG_FORMAT: z.enum(['json', 'pretty'], { error: 'must be json or pretty' }).optional(),
  BULK_CONCURRENCY: wholeNumber(1, 50).default(4),
  BULK_CHECK_SLOTS: wholeNumber(1, 8).default(2),
  TEST_BULK_PACE_MS: wholeNumber(20, 2_000).optional(),
});

/**
 * The bulk worker leaves the last BULK_CONCURRENCY places of the work budget to interactive requests and
 * takes the others: with a budget below twice its concurrency it would run fewer calls than configured, and
 * with one no larger than it, none at all. Checked whenever both values are readable, even when other
 * variables have problems, so that the one message lists them all.
 */
const BUDGET_FIELDS: readonly PropertyKey[] = ['MAX_WORK_IN_FLIGHT', 'BULK_CONCURRENCY'];
export const environmentSchema = environmentFields.refine((e) => e.MAX_WORK_IN_FLIGHT >= 2 * e.BULK_CONCURRENCY, {
  path: ['MAX_WORK_IN_FLIGHT'],
  when: (payload) => !payload.issues.some((issue) => BUDGET_FIELDS.includes(issue.path?.[0] ?? '')),
  error: (issue) => {
    // eslint-disable-next-line @typescript-eslint/consistent-type-assertions -- Object.keys/zod's input are typed loosely: these are the schema's own keys and already-parsed values
    const e = issue.input as { MAX_WORK_IN_FLIGHT: number; BULK_CONCURRENCY: number };
    return (
      `is ${e.MAX_WORK_IN_FLIGHT}, below twice BULK_CONCURRENCY (${e.BULK_CONCURRENCY}): bulk jobs leave ` +
      `${e.BULK_CONCURRENCY} place${e.BULK_CONCURRENCY === 1 ? '' : 's'} to interactive requests and use the rest, so they would ` +
      (e.MAX_WORK_IN_FLIGHT <= e.BULK_CONCURRENCY
        ? 'never run'
        : `run ${e.MAX_WORK_IN_FLIGHT - e.BULK_CONCURRENCY} Mint calls at a time instead of ${e.BULK_CONCURRENCY}`) +
      `; raise it to at least ${2 * e.BULK_CONCURRENCY} or lower BULK_CONCURRENCY`
    );
  },
});

export type Environment = z.output<typeof environmentSchema>;
