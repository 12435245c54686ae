import { MintApiError } from '../mint-api/mint-api-error.js';

/**
 * What a failed row becomes:
 * - `again`: the request was not sent (held back by the service's request to wait or the open circuit, or
 *   a connection never made), or the service refused it without doing anything (429, 503, 408): it goes
 *   back to pending and is sent when the service takes requests again;
 * - `pause`: the service refused the app's credentials: every row would fail the same way, so the job is
 *   paused with that reason (the row goes back to pending);
 * - `unknown`: it may have been done (no answer in time, a connection cut after sending, an answer that
 *   could not be read, a gateway's 502/504): never sent again by the app;
 * - `failed`: the service answered that it did not do it (4xx, 500).
 */
export type RowDisposition =
  | { kind: 'again' }
  | { kind: 'pause'; reason: string }
  | { kind: 'unknown'; error: string }
  | { kind: 'failed'; error: string };

const REFUSED_UNDONE = [408, 429, 503];
const GATEWAY_UNCLEAR = [502, 504];

export function rowDisposition(error: unknown): RowDisposition {
  if (!(error instanceof MintApiError)) {
    // Not the client's own error: a bug somewhere after the call may have gone out.
    return { kind: 'unknown', error: 'the app failed while sending it (logged for the operator)' };
  }
  const { status } = error;
  if (error.details.outcomeUnknown) return { kind: 'unknown', error: error.message };
  if (status === undefined) {
    if (['rate_limited', 'unavailable', 'network'].includes(error.kind)) return { kind: 'again' };
    return { kind: 'failed', error: error.message };
  }
  if (REFUSED_UNDONE.includes(status)) return { kind: 'again' };
  if (GATEWAY_UNCLEAR.includes(status)) return { kind: 'unknown', error: error.message };
  if (error.kind === 'unauthorized') {
    return {
      kind: 'pause',
      reason: `The Mint service refused the app's credentials (HTTP ${status}): ask the app's operator to check MINT_API_KEY, then resume.`,
    };
  }
  return { kind: 'failed', error: error.message };
}
