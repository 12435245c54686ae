import { configHints } from '../config/config-schema.js';

/** Turns a failure to reach or authenticate with Slack at start into one clear line for the operator. */
export function describeSlackStartError(
  error: unknown,
  token: 'SLACK_BOT_TOKEN' | 'SLACK_APP_TOKEN',
  apiUrl: string,
): string {
  const e = error as { code?: string; data?: { error?: string }; original?: Error; message?: string };
  if (e.code === 'slack_webapi_platform_error' && e.data?.error) {
    return `Slack rejected ${token} (${e.data.error}). Hint: ${configHints[token]}`;
  }
  const reason = e.original?.message ?? e.message ?? String(error);
  return `Could not reach the Slack Web API at ${apiUrl} (${reason}). Check the network and SLACK_API_URL.`;
}
