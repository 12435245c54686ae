import { stringFieldOf } from '../../unknown-fields.js';
/** The error code of a Web API call Slack answered with ok:false (e.g. `not_in_channel`), if it was one. */
export function slackErrorCode(error: unknown): string | undefined {
  return stringFieldOf(error, 'data', 'error');
}
