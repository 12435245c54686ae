import type { Scrubber } from '../logging/secret-scrubber.js';
import type { Metrics } from '../metrics/metrics.js';
import type { SlackCallHooks } from '../slack-api/web-client-options.js';

/** The app's scrubber and `mintlink_slack_api_calls_total`, for every Slack client the app makes. */
export function slackCallHooks(deps: { scrub: Scrubber; metrics: Metrics }): SlackCallHooks {
  return { scrub: deps.scrub, count: (method, error) => deps.metrics.slackCalls.inc({ method, error }) };
}
