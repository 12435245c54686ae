import type { Scrubber } from './secret-scrubber.js';
import type { Metrics } from './metrics.js';
import type { SlackInProcess } from '../../slack/slack-in-process.js';
import type { SlackCallHooks } from '../../slack/web-api/web-client-options.js';

/**
 * The app's scrubber and `mintlink_slack_api_calls_total`, for every Slack client the app makes; and Slack's
 * stand-in when a test runs the app with Slack in its own process (TestSeams.slack; main() gives none).
 */
export function slackCallHooks(
  deps: { scrub: Scrubber; metrics: Metrics },
  slackInProcess?: SlackInProcess,
): SlackCallHooks {
  return {
    scrub: deps.scrub,
    count: (method, error) => deps.metrics.slackCalls.inc({ method, error }),
    ...(slackInProcess?.fetch ? { transport: slackInProcess.fetch } : {}),
    ...(slackInProcess?.callDeadlineMs ? { deadlineMs: slackInProcess.callDeadlineMs } : {}),
    ...(slackInProcess?.retryWaitMs === undefined ? {} : { retryWaitMs: slackInProcess.retryWaitMs }),
    ...(slackInProcess?.downloadDeadlineMs ? { downloadDeadlineMs: slackInProcess.downloadDeadlineMs } : {}),
  };
}
