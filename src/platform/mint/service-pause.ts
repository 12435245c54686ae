import { MintApiError } from './mint-api-error.js';

/** Why the service asked the app to wait: it gets too many requests (429) or is down for a while (503). */
export type PauseReason = 'rate_limited' | 'unavailable';

export interface ServicePauseOptions {
  /** Pause after a 429 that does not say how long to wait. */
  defaultPauseMs: number;
  /** Milliseconds since the epoch; tests pass a clock they move by hand. */
  now: () => number;
}

/**
 * A bogus Retry-After (a day, a year) would silence the app until a restart. Past this bound one request goes
 * through again, and the service can repeat its request to wait if it still means it.
 */
const MAX_PAUSE_MS = 10 * 60 * 1000;

/**
 * The service's own request to stop sending for a while (429, or 503 with Retry-After), honoured for every
 * operation: requests sent meanwhile could only be refused again, and would add to the service's load.
 */
export class ServicePause {
  private until = 0;
  private reason: PauseReason = 'rate_limited';

  constructor(private readonly options: ServicePauseOptions) {}

  /** Takes note of an answer of the service; `retryAfterMs` is its Retry-After, if it gave one. */
  noteAnswer(status: number, retryAfterMs: number | undefined): void {
    if (status === 429) this.extend('rate_limited', retryAfterMs ?? this.options.defaultPauseMs);
    // A 503 without Retry-After says nothing about how long: the circuit breaker judges that case.
    else if (status === 503 && retryAfterMs !== undefined) this.extend('unavailable', retryAfterMs);
  }

  /** When calls may be sent again, while the pause lasts. */
  get pausedUntil(): Date | undefined {
    return this.leftMs() > 0 ? new Date(this.until) : undefined;
  }

  /** The error for a call made during the pause (not sent), or undefined when calls may go. */
  refusal(): MintApiError | undefined {
    const leftMs = this.leftMs();
    if (leftMs <= 0) return undefined;
    const seconds = Math.ceil(leftMs / 1000);
    const why = this.reason === 'rate_limited' ? 'it receives too many requests' : 'it is unavailable';
    return new MintApiError(
      this.reason,
      `The Mint service asked the app to wait (${why}); this request was not sent. Try again in ${seconds} s.`,
      { retryAfterSeconds: seconds, outcomeUnknown: false },
    );
  }

  private extend(reason: PauseReason, waitMs: number): void {
    const until = this.options.now() + Math.min(waitMs, MAX_PAUSE_MS);
    if (until <= this.until) return; // an earlier, longer request to wait still holds
    this.until = until;
    this.reason = reason;
  }

  private leftMs(): number {
    return this.until - this.options.now();
  }
}
