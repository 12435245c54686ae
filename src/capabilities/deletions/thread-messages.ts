import type { WebClient } from '@slack/web-api';
import type { Logger } from '../../platform/ops/telemetry/create-logger.js';
import type { MessageContent } from '../../platform/blocks/blocks.js';

/**
 * Replies in a thread, one message after the other, with a client that waits out Slack's rate limit
 * (chat.postMessage allows about one message per second per channel, and a long list may need several).
 * A part that cannot be posted ends the thread there, and is logged.
 */
export async function postThreadMessages(
  patientClient: WebClient,
  logger: Logger,
  where: { channel: string; threadTs: string },
  messages: readonly MessageContent[],
): Promise<void> {
  for (const [i, content] of messages.entries()) {
    try {
      await patientClient.chat.postMessage({ channel: where.channel, thread_ts: where.threadTs, ...content });
    } catch (error) {
      logger.error({ err: error, part: i + 1, of: messages.length }, 'could not post the full list in the thread');
      return;
    }
  }
}
