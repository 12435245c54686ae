/**
 * How a failed Slack Web API call ended, for work that must not be done twice (a message posted):
 * - `refused`: Slack answered and did nothing (ok:false with an error code, a 429 with Retry-After), or the
 *   request never left this process (no connection could be made). It may be sent again.
 * - `unknown`: it may have taken effect. The app's deadline passed, or the connection broke after the request
 *   was sent, or Slack answered 5xx, or Slack said part of it may have been done. In real Slack a late "ok"
 *   is a posted message, so it is never sent again blindly (the same rule as a bulk row's `unknown`).
 */
export type FailedCallOutcome = 'refused' | 'unknown';

/** Web API methods whose call, made twice, does the work twice (two messages, a file shared twice). */
export const UNREPEATABLE_METHODS: ReadonlySet<string> = new Set([
  'chat.postMessage',
  'chat.postEphemeral',
  'chat.meMessage',
  'chat.scheduleMessage',
  'files.completeUploadExternal',
  // Token rotation: Slack takes a refresh token once, so a renewal sent twice is refused the second time.
  'oauth.v2.access',
]);

/** ok:false errors that Slack documents as "it's possible some aspect of the operation succeeded". */
const MAYBE_DONE_ERRORS = new Set(['fatal_error', 'internal_error']);

/** Connection failures that mean the request never reached Slack. */
const NEVER_SENT_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
]);

/**
 * Thrown (by slackFetch) for a call of an UNREPEATABLE_METHODS method that was sent but got no answer in
 * time, or lost its connection, or got a 5xx: whether Slack did it is not known. The Web API client does not
 * try such a call again (see stopRetryingUnknownCalls).
 */
export class SlackOutcomeUnknownError extends Error {
  constructor(
    readonly method: string,
    cause: unknown,
  ) {
    super(`${method} got no answer Slack could be trusted on (${describeCause(cause)}); it may have taken effect`, {
      cause,
    });
    this.name = 'SlackOutcomeUnknownError';
  }
}

/** The one rule for every post the app must not repeat: see FailedCallOutcome. */
export function failedCallOutcome(error: unknown): FailedCallOutcome {
  // eslint-disable-next-line @typescript-eslint/consistent-type-assertions -- reads optional fields of a thrown SDK error, each checked before it is used
  const e = error as
    | { code?: unknown; data?: { error?: unknown }; original?: unknown; statusCode?: unknown; message?: unknown }
    | undefined;
  switch (e?.code) {
    case 'slack_webapi_platform_error':
      return MAYBE_DONE_ERRORS.has(String(e.data?.error)) ? 'unknown' : 'refused';
    case 'slack_webapi_rate_limited_error':
      return 'refused';
    case 'slack_webapi_http_error':
      // Slack's Web API answers 200 (or 429) when it did something or refused; a 5xx may come after the work.
      return typeof e.statusCode === 'number' && e.statusCode < 500 ? 'refused' : 'unknown';
    case 'slack_webapi_request_error':
      return neverSent(e.original) ? 'refused' : 'unknown';
    default:
      // A client that waits out 429s itself (patientWebClientOptions) ends with this when it gives up.
      return typeof e?.message === 'string' && e.message.startsWith('A rate limit was exceeded')
        ? 'refused'
        : 'unknown';
  }
}

/**
 * True when a fetch to Slack failed before any byte of the request could leave: no address, no connection.
 * Anything else (a deadline, a reset, a socket closed mid-answer) may have reached Slack.
 */
export function neverSent(error: unknown): boolean {
  if (error instanceof SlackOutcomeUnknownError) return false;
  // eslint-disable-next-line @typescript-eslint/consistent-type-assertions -- reads optional fields of a thrown SDK error, each checked before it is used
  const cause = (error as { cause?: { code?: unknown; errors?: Array<{ code?: unknown }> } } | undefined)?.cause;
  const code = cause?.code ?? cause?.errors?.[0]?.code;
  return typeof code === 'string' && NEVER_SENT_CODES.has(code);
}

/**
 * The Web API client's hook on each failed attempt (p-retry's onFailedAttempt, which the SDK passes its
 * retryConfig to): a call whose outcome is unknown is not tried again; throwing ends the retries with it.
 */
export function stopRetryingUnknownCalls(error: unknown): void {
  // eslint-disable-next-line @typescript-eslint/consistent-type-assertions -- reads optional fields of a thrown SDK error, each checked before it is used
  if ((error as { original?: unknown } | undefined)?.original instanceof SlackOutcomeUnknownError) throw error;
}

function describeCause(cause: unknown): string {
  if (cause instanceof Error) return cause.name === 'TimeoutError' ? 'no answer in time' : cause.message;
  return String(cause);
}
