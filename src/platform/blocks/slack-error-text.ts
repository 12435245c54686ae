import { failedCallOutcome } from '../slack/web-api/slack-call-outcome.js';
import { numberFieldOf, stringFieldOf } from '../unknown-fields.js';
/**
 * A Slack Web API failure, said for the user. The app's client fails fast on rate limits (it does not wait
 * minutes), so this says when to try again instead.
 */
export function slackErrorText(error: unknown): string {
  const slackError = stringFieldOf(error, 'data', 'error');
  switch (stringFieldOf(error, 'code')) {
    case 'slack_webapi_rate_limited_error':
      return `Slack is limiting how fast the app may call it. Please try again in ${numberFieldOf(error, 'retryAfter') ?? 60} seconds.`;
    case 'slack_webapi_platform_error':
      if (/expired_trigger_id|exchanged_trigger_id|trigger_expired|trigger_exchanged/.test(slackError ?? '')) {
        return 'Slack took too long to hand the form over. Please run the command again.';
      }
      return `Slack refused it (${slackError ?? 'unknown error'}). Please try again.`;
    case 'slack_webapi_request_error':
    case 'slack_webapi_http_error':
      // A call that may have reached Slack must not be repeated blindly: it may have posted or uploaded.
      return failedCallOutcome(error) === 'unknown'
        ? 'Slack did not confirm it (no answer in time), so it may have been done: check before trying again.'
        : 'the app could not reach Slack. Please try again in a moment.';
    default:
      return `${stringFieldOf(error, 'message') ?? 'unknown error'}. Please try again.`;
  }
}
