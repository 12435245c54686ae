import { MintApiError } from '../../platform/mint/mint-api-error.js';

/**
 * What a failed row becomes. The spec says nothing about the service's errors, and a proxy in front of it
 * may answer after it has forwarded the POST, so a row goes back to pending only when it is certain that
 * nothing was done:
 * - `again`: the app held the request back itself before sending it (the service's request to wait, the
 *   open circuit, a connection never made), or the service said to come back later: a 429, or a 503 with
 *   Retry-After. It goes back to pending and is sent when the service takes requests again;
 * - `pause`: the service refused the app's credentials: every row would fail the same way, so the job is
 *   paused with that reason (the row goes back to pending);
 * - `unknown`: it may have been done: no answer in time, a connection cut after sending, an answer that could
 *   not be read, any 5xx other than a 503 with Retry-After (a 500 is the service failing part-way, a 502/504
 *   or a bare 503 may come from a proxy after forwarding), a 408. Never sent again by the app;
 * - `failed`: the service answered that it would not do it (the other 4xx).
 */
export type RowDisposition =
  | { kind: 'again' }
  | { kind: 'pause'; reason: string }
  | { kind: 'unknown'; error: string }
  | { kind: 'failed'; error: string };

/** Refusals made by the app before sending: the service pause, the open circuit, no connection. */
const HELD_BACK: readonly MintApiError['kind'][] = ['rate_limited', 'unavailable', 'network'];

/** Who fixes refused credentials in single-workspace mode: the operator, who set the key. */
export const OPERATOR_FIXES_CREDENTIALS = "ask the app's operator to check MINT_API_KEY, then resume.";
/** In distribution mode: each workspace connected its own key. */
export const WORKSPACE_FIXES_CREDENTIALS =
  "ask an admin of this workspace to replace the workspace's Mint API key in the app's Home tab, then resume.";

/** `credentialsFix`: what to do when the service refuses the credentials (who can fix them, and how). */
export function rowDisposition(error: unknown, credentialsFix = OPERATOR_FIXES_CREDENTIALS): RowDisposition {
  if (!(error instanceof MintApiError)) {
    // Not the client's own error: a bug somewhere after the call may have gone out.
    return { kind: 'unknown', error: 'the app failed while sending it (logged for the operator)' };
  }
  const { status } = error;
  if (error.details.outcomeUnknown) return { kind: 'unknown', error: error.message };
  if (status === undefined) {
    // The client says outcomeUnknown for anything that may have left; what is left was never sent.
    if (HELD_BACK.includes(error.kind)) return { kind: 'again' };
    return { kind: 'failed', error: error.message };
  }
  if (status === 429) return { kind: 'again' };
  if (status === 503 && error.details.retryAfterSeconds !== undefined) return { kind: 'again' };
  if (status >= 500 || status === 408) return { kind: 'unknown', error: error.message };
  if (error.kind === 'unauthorized') {
    return {
      kind: 'pause',
      reason: `The Mint service refused the app's credentials (HTTP ${status}): ${credentialsFix}`,
    };
  }
  return { kind: 'failed', error: error.message };
}
