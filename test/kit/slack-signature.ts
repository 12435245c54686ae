import { createHmac } from 'node:crypto';

/**
 * Signs a request body exactly as Slack does: v0= HMAC-SHA256 over `v0:{timestamp}:{raw body}` with the
 * signing secret (https://api.slack.com/authentication/verifying-requests-from-slack).
 */
export function slackSignatureHeaders(
  body: string,
  signingSecret: string,
  timestampSec: number | string = Math.floor(Date.now() / 1000),
): Record<string, string> {
  const signature = createHmac('sha256', signingSecret).update(`v0:${timestampSec}:${body}`).digest('hex');
  return { 'x-slack-request-timestamp': String(timestampSec), 'x-slack-signature': `v0=${signature}` };
}
