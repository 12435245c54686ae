import type { RetryHandler } from 'undici';
import { fieldOf, numberFieldOf, stringFieldOf } from '../unknown-fields.js';

/** Failures that happen before a request reaches the service: repeating them cannot do anything twice. */
export const PRE_SEND_ERROR_CODES: readonly string[] = [
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENETDOWN',
  'EHOSTDOWN',
  'UND_ERR_CONNECT_TIMEOUT',
];
/** Failures after sending, worth another try only for requests that are safe to repeat (GET). */
const AFTER_SEND_ERROR_CODES = ['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED'];
const RETRY_STATUSES = [429, 500, 502, 503, 504];
const SAFE_METHODS = ['GET', 'HEAD'];

export interface RetryPolicyOptions {
  maxRetries: number;
  /** First backoff when the service gives no Retry-After; doubles each time. */
  baseDelayMs: number;
  /** Time left in a request's budget, from the request's signal; no retry is started that cannot finish. */
  remainingMs: (signal: unknown) => number;
  /** Runs `then` after `ms` and returns how to cancel it: setTimeout by default; tests end a wait when they choose. */
  retryTimer?: RetryTimer | undefined;
}

/** Calls `then` once `ms` have passed; the function returned cancels it. */
export type RetryTimer = (ms: number, then: () => void) => () => void;

const realTimer: RetryTimer = (ms, then) => {
  const timer = setTimeout(then, ms);
  return () => clearTimeout(timer);
};

type RetryCallback = Parameters<RetryHandler.RetryCallback>[2];
type RetryContext = Parameters<RetryHandler.RetryCallback>[1];

/**
 * The decision function handed to undici's RetryAgent: which failures to repeat and how long to wait.
 * The retrying itself is undici's.
 */
export function retryDecision({ maxRetries, baseDelayMs, remainingMs, retryTimer = realTimer }: RetryPolicyOptions) {
  return (err: Error, { state, opts }: RetryContext, callback: RetryCallback): void => {
    const code = stringFieldOf(err, 'code');
    const statusCode = numberFieldOf(err, 'statusCode');
    const method = (opts.method ?? 'GET').toUpperCase();
    const given = fieldOf(opts, 'signal'); // passed through from request()
    const signal = given instanceof AbortSignal ? given : undefined;
    const safeToRepeat = SAFE_METHODS.includes(method)
      ? statusCode !== undefined
        ? RETRY_STATUSES.includes(statusCode)
        : code !== undefined && (PRE_SEND_ERROR_CODES.includes(code) || AFTER_SEND_ERROR_CODES.includes(code))
      : statusCode === undefined && code !== undefined && PRE_SEND_ERROR_CODES.includes(code);

    if (!safeToRepeat || state.counter > maxRetries || signal?.aborted) {
      callback(err);
      return;
    }
    const retryAfter = fieldOf(err, 'headers', 'retry-after');
    const retryAfterMs = parseRetryAfter(typeof retryAfter === 'string' ? retryAfter : undefined);
    const waitMs = retryAfterMs ?? baseDelayMs * 2 ** (state.counter - 1);
    if (waitMs >= remainingMs(signal)) {
      callback(err); // the answer would come after the budget: report now instead of waiting in vain
      return;
    }
    const onAbort = () => {
      cancel();
      callback(err);
    };
    const cancel = retryTimer(waitMs, () => {
      signal?.removeEventListener('abort', onAbort);
      callback(null);
    });
    signal?.addEventListener('abort', onAbort, { once: true });
  };
}

/** Retry-After as milliseconds: delta seconds or an HTTP date. */
export function parseRetryAfter(value: string | string[] | undefined): number | undefined {
  const raw = Array.isArray(value) ? value[0] : value;
  if (!raw) return undefined;
  if (/^\d+$/.test(raw.trim())) return Number(raw.trim()) * 1000;
  const at = Date.parse(raw);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}
