import {
  BrokenCircuitError,
  CircuitState,
  ConsecutiveBreaker,
  circuitBreaker,
  handleWhen,
  type CircuitBreakerPolicy,
} from 'cockatiel';
import type { Logger } from '../ops/telemetry/create-logger.js';
import { MintApiError } from './mint-api-error.js';

/** 'half-open': the open time is over and the next call goes through, as a test of the service. */
export type CircuitPosition = 'closed' | 'open' | 'half-open';

export interface MintCircuitOptions {
  /** Operations in a row that must fail with an outage to open the circuit. */
  consecutiveFailures: number;
  /** How long the circuit stays open before one call may test the service again. */
  halfOpenAfterMs: number;
}

const DEFAULT_CONSECUTIVE_FAILURES = 5;
const DEFAULT_HALF_OPEN_AFTER_MS = 10_000;

/**
 * A failure that says the service is down rather than that it refused this request: no connection, no answer
 * in time, or a 5xx. 4xx answers (429 included) show a service that works, and a refusal by the app itself
 * never reaches the service at all.
 */
function isOutage(error: unknown): boolean {
  if (!(error instanceof MintApiError)) return false;
  if (error.details.addressRefused) return false; // the app's own refusal: nothing reached the service
  if (error.status !== undefined) return error.status >= 500;
  return error.kind === 'network' || error.kind === 'timeout';
}

/** What an operation ended with, as cockatiel sees it: an answer of the service is a success for the breaker. */
type Settled<T> = { value: T } | { answer: unknown };

/**
 * Fails fast while the service is known to be down, instead of making every user wait for a timeout that
 * would only add to the load, and closes again on its own once a test call succeeds. The breaking is
 * cockatiel's; this adds the app's errors and a state that status displays can read.
 */
export class MintCircuit {
  private readonly policy: CircuitBreakerPolicy;
  private readonly halfOpenAfterMs: number;
  private openedAt = 0;

  constructor(options: Partial<MintCircuitOptions> = {}, logger?: Logger) {
    const halfOpenAfterMs = options.halfOpenAfterMs ?? DEFAULT_HALF_OPEN_AFTER_MS;
    this.halfOpenAfterMs = halfOpenAfterMs;
    this.policy = circuitBreaker(handleWhen(isOutage), {
      halfOpenAfter: halfOpenAfterMs,
      breaker: new ConsecutiveBreaker(options.consecutiveFailures ?? DEFAULT_CONSECUTIVE_FAILURES),
    });
    this.policy.onBreak(() => {
      this.openedAt = Date.now();
      logger?.warn({ halfOpenAfterMs }, 'mint circuit opened: not sending requests for a while');
    });
    this.policy.onReset(() => logger?.info('mint circuit closed: the service answers again'));
  }

  get position(): CircuitPosition {
    switch (this.policy.state) {
      case CircuitState.Closed:
        return 'closed';
      case CircuitState.HalfOpen:
        return 'half-open';
      case CircuitState.Open:
        // cockatiel moves on only when a call comes; a status display should already see the way is free.
        return this.openTimeOver() ? 'half-open' : 'open';
      case CircuitState.Isolated:
        return 'open';
    }
  }

  /** The error for a call that must not be sent now, or undefined when it may go. */
  refusal(): MintApiError | undefined {
    const state = this.policy.state;
    // While one call tests the service, cockatiel would queue the others behind it: they fail fast instead.
    if (state === CircuitState.HalfOpen || state === CircuitState.Isolated) return circuitOpenError();
    if (state === CircuitState.Open && !this.openTimeOver()) return circuitOpenError();
    return undefined;
  }

  /** Runs one operation (its retries included), counting it as one success or one failure. */
  async run<T>(operation: () => Promise<T>): Promise<T> {
    const settled = await this.policy
      .execute(() => settle(operation))
      .catch((error: unknown) => {
        throw error instanceof BrokenCircuitError ? circuitOpenError() : error;
      });
    if ('answer' in settled) throw settled.answer;
    return settled.value;
  }

  private openTimeOver(): boolean {
    // openedAt is taken just after cockatiel's own, so when this says over, cockatiel lets the call through.
    return Date.now() - this.openedAt >= this.halfOpenAfterMs;
  }
}

/**
 * A refusal such as a 400 rejects the operation but proves the service is up: handed to cockatiel as a value
 * so that it breaks a run of outages (cockatiel ignores errors it does not handle, neither counting nor
 * resetting). Outages stay thrown, for cockatiel to count.
 */
async function settle<T>(operation: () => Promise<T>): Promise<Settled<T>> {
  try {
    return { value: await operation() };
  } catch (error) {
    if (isOutage(error)) throw error;
    return { answer: error };
  }
}

function circuitOpenError(): MintApiError {
  return new MintApiError(
    'unavailable',
    'The Mint service has been failing, so the app is not sending requests to it for a few seconds; ' +
      'this one was not sent.',
    { outcomeUnknown: false },
  );
}
