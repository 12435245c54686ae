import type { WebClient } from '@slack/web-api';
import type { Logger } from '../ops/telemetry/create-logger.js';
import { failedCallOutcome, type FailedCallOutcome } from '../slack/web-api/slack-call-outcome.js';
import type { MessageContent } from './blocks.js';

/**
 * Posts to the user's DM with the app (its Messages tab), so a result outlives the modal that showed it.
 * Resolves with how it went instead of throwing (a DM that cannot be sent must not undo the work it reports):
 * `sent`, or, when it failed, whether Slack refused it or it may have been posted all the same (see
 * failedCallOutcome), which a caller that would send it again must respect.
 */
export async function sendDirectMessage(
  client: WebClient,
  userId: string,
  content: MessageContent,
  logger: Logger,
): Promise<'sent' | FailedCallOutcome> {
  try {
    await client.chat.postMessage({ channel: userId, text: content.text, blocks: content.blocks, unfurl_links: false });
    return 'sent';
  } catch (error) {
    const outcome = failedCallOutcome(error);
    logger.warn(
      { err: error, user: userId, outcome },
      outcome === 'unknown' ? 'the direct message may or may not have been sent' : 'could not send the direct message',
    );
    return outcome;
  }
}
