import { configHints } from '../config/config-schema.js';
import { stringFieldOf } from '../../unknown-fields.js';

/** Turns a failure to reach or authenticate with Slack at start into one clear line for the operator. */
export function describeSlackStartError(
  error: unknown,
  token: 'SLACK_BOT_TOKEN' | 'SLACK_APP_TOKEN',
  apiUrl: string,
): string {
  const slackError = stringFieldOf(error, 'data', 'error');
  if (stringFieldOf(error, 'code') === 'slack_webapi_platform_error' && slackError) {
    return `Slack rejected ${token} (${slackError}). Hint: ${configHints[token]}`;
  }
  const reason = stringFieldOf(error, 'original', 'message') ?? stringFieldOf(error, 'message') ?? String(error);
  return `Could not reach the Slack Web API at ${apiUrl} (${reason}). Check the network and SLACK_API_URL.`;
}
