import type { WebClientOptions } from '@slack/web-api';
import { undiciFetch } from './undici-fetch.js';

/**
 * Slack Web API client settings. The SDK's default retries 429s and failures for about 30 minutes; a user
 * waiting on a button cannot wait that long, so calls fail fast and the caller tells the user.
 */
export function webClientOptions(slackApiUrl: string): WebClientOptions {
  return {
    slackApiUrl,
    fetch: undiciFetch({ timeoutMs: 10_000 }), // also Bolt's respond(): Bolt takes it from the client options
    rejectRateLimitedCalls: true,
    retryConfig: { retries: 2, factor: 2, minTimeout: 200, maxTimeout: 1_000, randomize: true },
    // No SDK `timeout`: it makes an AbortSignal.timeout per call whose timer outlives the call by 10 s, so
    // thousands of them pile up under load and get promoted to the old generation. The fetch above applies
    // the same 10 s limit with timers that end with the call.
    timeout: 0,
  };
}
