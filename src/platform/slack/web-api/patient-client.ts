import { WebClient } from '@slack/web-api';
import type { Config } from '../../ops/config/config.js';
import { boltLogger } from '../../ops/telemetry/bolt-logger.js';
import type { Logger } from '../../ops/telemetry/create-logger.js';
import { patientWebClientOptions, type SlackCallHooks } from './web-client-options.js';

/**
 * A Slack client for background posts nobody waits on (a thread of IDs, progress messages, results files): it
 * waits out Slack's rate limits (see patientWebClientOptions), with the app's scrubber and call metrics.
 * `token`: a workspace's bot token in distribution mode (the one SLACK_BOT_TOKEN otherwise).
 */
export function patientSlackClient(
  deps: { config: Pick<Config, 'slack'>; slackCalls: SlackCallHooks },
  logger: Logger,
  token = deps.config.slack.botToken,
): WebClient {
  return new WebClient(token, {
    ...patientWebClientOptions(deps.config.slack.apiUrl, deps.slackCalls),
    logger: boltLogger(logger),
  });
}
