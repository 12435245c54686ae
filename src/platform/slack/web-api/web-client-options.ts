import type { RetryOptions, WebClientOptions } from '@slack/web-api';
import type { Scrubber } from '../../ops/telemetry/secret-scrubber.js';
import { SpanKind, inSpan } from '../../ops/telemetry/tracing.js';
import {
  SlackOutcomeUnknownError,
  UNREPEATABLE_METHODS,
  neverSent,
  stopRetryingUnknownCalls,
} from './slack-call-outcome.js';

/** What the app's Slack calls go through: its secret scrubber, and a counter of calls by method and error. */
export interface SlackCallHooks {
  scrub: Scrubber;
  count?: (method: string, error: string) => void;
  /**
   * Where the requests go: the network (the built-in fetch) unless a stand-in answers them in the same process
   * (the listener tests' fake Slack, see TestSeams.slack).
   */
  transport?: typeof fetch;
  /** How long a call may take before it is given up: SLACK_CALL_DEADLINE_MS unless a test shortens it. */
  deadlineMs?: number;
  /**
   * The first wait before a failed call is tried again (doubled at each try): SLACK_RETRY_WAIT_MS, or
   * PATIENT_RETRY_WAIT_MS for the patient clients, unless a test shortens it (TestSeams.slack).
   */
  retryWaitMs?: number;
  /** How long the download of a file a user attached may take: downloadSlackFile's own unless a test shortens it. */
  downloadDeadlineMs?: number;
}

/** The longest any call to Slack (Web API or response_url) may take before it is given up. */
export const SLACK_CALL_DEADLINE_MS = 10_000;
/** The first wait before a failed call is tried again. */
const SLACK_RETRY_WAIT_MS = 200;
/** The same for the patient clients' background posts. */
const PATIENT_RETRY_WAIT_MS = 1_000;

/**
 * Slack Web API client settings, also used by Bolt's respond(). The SDK's default retries 429s and failures
 * for about 30 minutes; a user waiting on a button cannot wait that long, and a silent Slack must not hold
 * work (and memory) for that long either: calls fail fast and the caller tells the user. A post whose outcome
 * is unknown is never retried (see retryConfig).
 */
export function webClientOptions(slackApiUrl: string, hooks: SlackCallHooks): WebClientOptions {
  const deadlineMs = hooks.deadlineMs ?? SLACK_CALL_DEADLINE_MS;
  return {
    slackApiUrl,
    timeout: deadlineMs,
    fetch: slackFetch(deadlineMs, slackApiUrl, hooks),
    rejectRateLimitedCalls: true,
    retryConfig: retryConfig({
      retries: 2,
      factor: 2,
      minTimeout: hooks.retryWaitMs ?? SLACK_RETRY_WAIT_MS,
      maxTimeout: 1_000,
      randomize: true,
    }),
  };
}

/**
 * The SDK tries a failed call again (p-retry, given the whole retryConfig); for a post that may have been
 * made (SlackOutcomeUnknownError, thrown by slackFetch) that would be a second message: such a call is not
 * tried again. Reads, updates and refusals are tried again as before.
 */
function retryConfig(options: RetryOptions): RetryOptions {
  const config: RetryOptions & { onFailedAttempt: (error: unknown) => void } = {
    ...options,
    onFailedAttempt: stopRetryingUnknownCalls,
  };
  return config;
}

/**
 * The built-in fetch every call to Slack goes through (the Web API client's and Bolt's respond()), with:
 * - the app's secret scrubber over every text body: the one choke point between the app and Slack, so a
 *   secret echoed by the Mint service or by Slack itself never reaches a message, a modal or a Home tab;
 * - a deadline on calls that bring none: respond() posts to response_urls with no time limit, so a host that
 *   never answers would hold the work (and its place in the work budget) for ever;
 * - a count of every call by Web API method (or `response_url`) and Slack's error code;
 * - for a post that must not be made twice (UNREPEATABLE_METHODS): a failure after the request may have
 *   reached Slack (no answer in time, a broken connection, a 5xx) is thrown as a SlackOutcomeUnknownError.
 */
export function slackFetch(deadlineMs: number, slackApiUrl: string, hooks: SlackCallHooks): typeof fetch {
  const send = async (input: Parameters<typeof fetch>[0], init: Parameters<typeof fetch>[1], method: string) => {
    try {
      const response = await (hooks.transport ?? globalThis.fetch)(input, {
        ...init,
        ...(typeof init?.body === 'string' ? { body: hooks.scrub(init.body) } : {}),
        signal: init?.signal ?? AbortSignal.timeout(deadlineMs),
      });
      if (hooks.count) countAnswer(response, method, hooks.count);
      if (response.status >= 500 && UNREPEATABLE_METHODS.has(method)) {
        await response.body?.cancel();
        throw new SlackOutcomeUnknownError(method, new Error(`HTTP ${response.status}`));
      }
      return response;
    } catch (error) {
      if (error instanceof SlackOutcomeUnknownError) throw error;
      hooks.count?.(method, error instanceof Error && error.name === 'TimeoutError' ? 'timeout' : 'network');
      if (UNREPEATABLE_METHODS.has(method) && !neverSent(error)) throw new SlackOutcomeUnknownError(method, error);
      throw error;
    }
  };
  return (input, init) => {
    const url = input instanceof Request ? input.url : String(input);
    const method = url.startsWith(slackApiUrl)
      ? url.slice(slackApiUrl.length).split('?')[0] || 'unknown'
      : 'response_url';
    return inSpan(`slack ${method}`, SpanKind.CLIENT, { 'slack.method': method }, () => send(input, init, method));
  };
}

/**
 * The Web API says ok:false in a 200 body; a response_url says it with the status. The body is read where
 * the SDK reads it (its one `text()`), not parsed a second time: Slack's answers start with `{"ok":true`.
 */
function countAnswer(response: Response, method: string, count: (method: string, error: string) => void): void {
  if (method === 'response_url' || !response.ok) {
    count(method, response.ok ? 'ok' : `http_${response.status}`);
    return;
  }
  const read = response.text.bind(response);
  const text = async (): Promise<string> => {
    const body = await read();
    const ok = /^\s*\{\s*"ok"\s*:\s*true/.test(body);
    count(method, ok ? 'ok' : errorLabel(/"error"\s*:\s*"([^"]*)"/.exec(body)?.[1]));
    return body;
  };
  Object.defineProperty(response, 'text', { value: text });
}

/** Slack's error codes are snake_case words; anything else (it would be a label value) is "other". */
function errorLabel(error: unknown): string {
  return typeof error === 'string' && /^[a-z_]{1,60}$/.test(error) ? error : 'other';
}

/**
 * For background posts nobody waits on (a long list in a thread): Slack's rate limits are waited out by the
 * SDK itself (it pauses for Retry-After and tries again), a few times.
 */
export function patientWebClientOptions(slackApiUrl: string, hooks: SlackCallHooks): WebClientOptions {
  return {
    ...webClientOptions(slackApiUrl, hooks),
    rejectRateLimitedCalls: false,
    retryConfig: retryConfig({
      retries: 3,
      factor: 2,
      minTimeout: hooks.retryWaitMs ?? PATIENT_RETRY_WAIT_MS,
      maxTimeout: 30_000,
      maxRetryTime: 60_000,
    }),
  };
}
