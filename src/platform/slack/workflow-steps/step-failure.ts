import { isDatabaseError } from '../../ops/lifecycle/database-error.js';
import { MintApiError } from '../../mint/mint-api-error.js';
import { mintErrorText } from '../../blocks/mint-error-text.js';

/*
 * A failed step shows its error to the workflow's builder and runner as plain text (Workflow Builder's
 * activity view does not render mrkdwn): say what to fix (an input, the service, the app's credentials),
 * never a secret (the app's Slack fetch scrubs every call, functions.completeError included).
 */

/**
 * The user-facing texts are written as Slack mrkdwn, escaped; the step shows them as plain text. Angle brackets
 * become ‹ › rather than < >: the service's words quoted in a text must never turn into a mention (<!channel>)
 * wherever Slack shows a step's error.
 */
export function plainText(mrkdwn: string): string {
  return mrkdwn.replace(/&lt;/g, '‹').replace(/&gt;/g, '›').replace(/&amp;/g, '&');
}

/** A Mint failure as a step error: `thing` and `done` as for mintErrorText ("the mint link", "created"). */
export function mintFailureText(error: MintApiError, thing: string, done?: string): string {
  return plainText(mintErrorText(error, thing, done));
}

/** Anything a step's handler did not expect. */
export function unexpectedStepFailureText(error: unknown, thing: string): string {
  if (error instanceof MintApiError) return mintFailureText(error, thing);
  return isDatabaseError(error)
    ? 'Mintlink cannot reach its database right now, so nothing was done. Run the workflow again in a moment.'
    : 'Something went wrong inside Mintlink (the details are logged for its operator). Run the workflow again; if it keeps failing, tell the operator.';
}

/** Slack's limit on a step's error text is not documented; a long service message is cut to stay readable. */
export const STEP_ERROR_MAX_CHARS = 1000;

export function boundedStepError(text: string): string {
  return text.length <= STEP_ERROR_MAX_CHARS ? text : `${text.slice(0, STEP_ERROR_MAX_CHARS - 1)}…`;
}
