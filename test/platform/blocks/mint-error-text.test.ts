import { describe, expect, it } from 'vitest';
import { MintApiError } from '../../../src/platform/mint/mint-api-error.js';
import { ServicePause } from '../../../src/platform/mint/service-pause.js';
import { mintErrorText } from '../../../src/platform/blocks/mint-error-text.js';

/** A refusal of the app's own pause, as the client makes it after the service answered `status`. */
function pausedBy(status: number, retryAfterMs: number | undefined): MintApiError {
  const pause = new ServicePause({ defaultPauseMs: 5_000, now: () => 0 });
  pause.noteAnswer(status, retryAfterMs);
  const refusal = pause.refusal();
  if (!refusal) throw new Error(`no pause after ${status}`);
  return refusal;
}

describe('texts for calls the app held back', () => {
  it('says the service has been failing when the circuit is open', () => {
    const open = new MintApiError('unavailable', 'circuit open', { outcomeUnknown: false });
    expect(mintErrorText(open, 'the wallet', 'created')).toBe(
      'The Mint service has been failing; the app paused calls for a few seconds: try again in a moment. ' +
        'Nothing was created.',
    );
    expect(mintErrorText(open, 'the templates')).toBe(
      'The Mint service has been failing; the app paused calls for a few seconds: try again in a moment.',
    );
  });

  it('gives the time left when the service asked the app to wait', () => {
    expect(mintErrorText(pausedBy(429, 2_000), 'the mint link', 'created')).toBe(
      'The Mint service is receiving too many requests. Try again in 2 seconds. Nothing was created.',
    );
    expect(mintErrorText(pausedBy(429, undefined), 'the templates')).toBe(
      'The Mint service is receiving too many requests. Try again in 5 seconds.',
    );
    expect(mintErrorText(pausedBy(503, 120_000), 'the wallet', 'created')).toBe(
      'The Mint service is unavailable and asked the app to wait: try again in 2 minutes. Nothing was created.',
    );
  });

  it('keeps the text of a 5xx answer', () => {
    const details = { status: 502, outcomeUnknown: true };
    const answered = new MintApiError('unavailable', 'The Mint service answered 502.', details);
    expect(mintErrorText(answered, 'the mint link', 'created')).toBe(
      'The Mint service is unavailable right now (HTTP 502). Try again in a few minutes. ' +
        'The mint link may have been created anyway: check before trying again.',
    );
  });
});

describe('ServicePause', () => {
  it('keeps the longer of two requests to wait and bounds a bogus one', () => {
    let now = 0;
    const pause = new ServicePause({ defaultPauseMs: 5_000, now: () => now });
    pause.noteAnswer(503, 30_000);
    pause.noteAnswer(429, 1_000);
    expect(pause.refusal()).toMatchObject({ kind: 'unavailable', details: { retryAfterSeconds: 30 } });
    pause.noteAnswer(429, 365 * 24 * 3600 * 1000);
    expect(pause.pausedUntil).toEqual(new Date(10 * 60 * 1000));
    now = 10 * 60 * 1000;
    expect(pause.refusal()).toBeUndefined();
  });

  it('ignores answers that do not ask to wait', () => {
    const pause = new ServicePause({ defaultPauseMs: 5_000, now: () => 0 });
    for (const status of [200, 400, 500, 502, 503]) pause.noteAnswer(status, undefined);
    pause.noteAnswer(500, 10_000); // only 429 and 503 carry Retry-After as a request to the client
    expect(pause.refusal()).toBeUndefined();
  });
});
