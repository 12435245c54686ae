import type { WebClientOptions } from '@slack/web-api';

/** The longest any call to Slack (Web API or response_url) may take before it is given up. */
export const SLACK_CALL_DEADLINE_MS = 10_000;

/**
 * Slack Web API client settings, also used by Bolt's respond(). The SDK's default retries 429s and failures
 * for about 30 minutes; a user waiting on a button cannot wait that long, and a silent Slack must not hold
 * work (and memory) for that long either: calls fail fast and the caller tells the user.
 */
export function webClientOptions(slackApiUrl: string): WebClientOptions {
  return {
    slackApiUrl,
    timeout: SLACK_CALL_DEADLINE_MS,
    fetch: fetchWithDeadline(SLACK_CALL_DEADLINE_MS),
    rejectRateLimitedCalls: true,
    retryConfig: { retries: 2, factor: 2, minTimeout: 200, maxTimeout: 1_000, randomize: true },
  };
}

/**
 * The built-in fetch, with a deadline on calls that bring none: Bolt's respond() posts to response_urls with
 * the client's fetch and no time limit, so a response_url host that never answers would hold the work (and
 * its place in the work budget) for ever.
 */
export function fetchWithDeadline(deadlineMs: number): typeof fetch {
  return (input, init) => fetch(input, { ...init, signal: init?.signal ?? AbortSignal.timeout(deadlineMs) });
}

/**
 * For background posts nobody waits on (a long list in a thread): Slack's rate limits are waited out by the
 * SDK itself (it pauses for Retry-After and tries again), a few times.
 */
export function patientWebClientOptions(slackApiUrl: string): WebClientOptions {
  return {
    ...webClientOptions(slackApiUrl),
    rejectRateLimitedCalls: false,
    retryConfig: { retries: 3, factor: 2, minTimeout: 1_000, maxTimeout: 30_000, maxRetryTime: 60_000 },
  };
}
