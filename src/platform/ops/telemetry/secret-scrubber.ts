/**
 * Slack token shapes, scrubbed even when the value is not one we were configured with: bot, user, app-level,
 * refresh (xoxe-, with token rotation) and workflow execution tokens (xwfp-, handed to the app with each step
 * it runs).
 */
const SLACK_TOKEN = /\bx(?:ox[abposre]|app|wfp)-[A-Za-z0-9-]{6,}/g;

/**
 * A workflow execution's token by its key, whatever its shape: in a JSON payload logged as it came (Socket
 * Mode's debug lines), escaped once or twice inside a JSON string.
 */
const EXECUTION_TOKEN_FIELD = /(\\*"bot_access_token\\*"\s*:\s*\\*")[^"\\]*/g;

export const REDACTED = '[redacted]';

/** Whether a text has the fixed part of SLACK_TOKEN's every match (`xox`, `xapp-` or `xwfp-`). */
function mayHoldSlackToken(text: string): boolean {
  return text.includes('xox') || text.includes('xapp-') || text.includes('xwfp-');
}

export type Scrubber = (text: string) => string;

/**
 * Returns a function that replaces every known secret value and anything shaped like a Slack token. It is the
 * one scrubber of the app, applied where text leaves it: every log line, every call to Slack (Web API and
 * response_url bodies) and every value written to the database, so no code path can leak a secret, whatever
 * the Mint service or Slack echo back.
 *
 * Those texts are JSON (log lines, response_url posts), form-encoded (Web API calls, whose objects are JSON
 * inside the form) or plain, so each secret is looked for in each of those spellings: a key with a `"` or a
 * `\` is `\"`/`\\` in a JSON line, and a `+` or `/` is `%2B`/`%2F` in a form.
 */
export function createSecretScrubber(secrets: readonly string[]): Scrubber {
  // Short values are skipped: they would redact ordinary words and cannot be real credentials.
  const kept = [...new Set(secrets)].filter((s) => s.length >= 6);
  const values = kept.flatMap((secret) => spellings(secret));
  // Longest first, so a secret that contains another (or its own other spelling) is replaced whole.
  const unique = [...new Set(values)].sort((a, b) => b.length - a.length);
  const pattern = unique.length > 0 ? new RegExp(unique.map((value) => escapeRegExp(value)).join('|'), 'g') : undefined;
  // Every spelling keeps a secret's letters and digits as they are, so a text without the longest run of
  // them of any secret holds no spelling of one. Finding a word costs far less than running the expression at
  // every position, and almost no text holds a secret (this runs on every log line and every call to Slack);
  // a secret without a run long enough to be telling is always looked for.
  const runs = kept.map((secret) => longestAlphanumericRun(secret));
  const mayHoldSecret = runs.some((run) => run.length < 4)
    ? () => true
    : (text: string) => runs.some((run) => text.includes(run));
  return (text) => {
    let scrubbed = pattern && mayHoldSecret(text) ? text.replace(pattern, REDACTED) : text;
    // Each shape likewise, only in a text that has its fixed part.
    if (mayHoldSlackToken(scrubbed)) scrubbed = scrubbed.replace(SLACK_TOKEN, REDACTED);
    if (scrubbed.includes('bot_access_token')) scrubbed = scrubbed.replace(EXECUTION_TOKEN_FIELD, `$1${REDACTED}`);
    return scrubbed;
  };
}

/**
 * The ways a secret can be written in the texts the app sends: as is, or as Slack text escapes it (`&<>` as
 * entities; inside bold, italic or code, `*`, `_` and backticks replaced: see platform/blocks/mrkdwn.ts), each of
 * those in JSON, in a URL or form, or both.
 */
function spellings(secret: string): string[] {
  const escaped = secret.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  const shown = [
    secret,
    escaped,
    escaped.replace(/\*/g, '\u2217').replace(/`/g, "'"),
    escaped.replace(/_/g, '\uff3f').replace(/`/g, "'"),
    escaped.replace(/`/g, "'"),
  ];
  const forms = (text: string) => [encodeURIComponent(text), new URLSearchParams({ s: text }).toString().slice(2)];
  return shown.flatMap((text) => {
    const json = JSON.stringify(text).slice(1, -1);
    return [text, json, ...forms(text), ...forms(json), JSON.stringify(json).slice(1, -1)];
  });
}

function longestAlphanumericRun(secret: string): string {
  return (secret.match(/[A-Za-z0-9]+/g) ?? []).reduce(
    (longest, run) => (run.length > longest.length ? run : longest),
    '',
  );
}

function escapeRegExp(value: string): string {
  return value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
