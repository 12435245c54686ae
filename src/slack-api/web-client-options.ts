import type { WebClientOptions } from '@slack/web-api';
import type { Scrubber } from '../logging/secret-scrubber.js';

/** The longest any call to Slack (Web API or response_url) may take before it is given up. */
export const SLACK_CALL_DEADLINE_MS = 10_000;

/**
 * Slack Web API client settings, also used by Bolt's respond(). The SDK's default retries 429s and failures
 * for about 30 minutes; a user waiting on a button cannot wait that long, and a silent Slack must not hold
 * work (and memory) for that long either: calls fail fast and the caller tells the user.
 */
export function webClientOptions(slackApiUrl: string, scrub: Scrubber): WebClientOptions {
  return {
    slackApiUrl,
    timeout: SLACK_CALL_DEADLINE_MS,
    fetch: slackFetch(SLACK_CALL_DEADLINE_MS, scrub),
    rejectRateLimitedCalls: true,
    retryConfig: { retries: 2, factor: 2, minTimeout: 200, maxTimeout: 1_000, randomize: true },
  };
}

/**
 * The built-in fetch every call to Slack goes through (the Web API client's and Bolt's respond()), with two
 * additions:
 * - the app's secret scrubber over every text body: the one choke point between the app and Slack, so a
 *   secret echoed by the Mint service or by Slack itself never reaches a message, a modal or a Home tab;
 * - a deadline on calls that bring none: respond() posts to response_urls with no time limit, so a host that
 *   never answers would hold the work (and its place in the work budget) for ever.
 */
export function slackFetch(deadlineMs: number, scrub: Scrubber): typeof fetch {
  return (input, init) =>
    fetch(input, {
      ...init,
      ...(typeof init?.body === 'string' ? { body: scrub(init.body) } : {}),
      signal: init?.signal ?? AbortSignal.timeout(deadlineMs),
    });
}

/**
 * For background posts nobody waits on (a long list in a thread): Slack's rate limits are waited out by the
 * SDK itself (it pauses for Retry-After and tries again), a few times.
 */
export function patientWebClientOptions(slackApiUrl: string, scrub: Scrubber): WebClientOptions {
  return {
    ...webClientOptions(slackApiUrl, scrub),
    rejectRateLimitedCalls: false,
    retryConfig: { retries: 3, factor: 2, minTimeout: 1_000, maxTimeout: 30_000, maxRetryTime: 60_000 },
  };
}
