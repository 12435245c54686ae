import type { WebClient } from '@slack/web-api';
import type { Logger } from '../logging/create-logger.js';
import type { MessageContent } from './blocks.js';

/**
 * Posts to the user's DM with the app (its Messages tab), so a result outlives the modal that showed it.
 * Returns false instead of throwing: a DM that cannot be sent must not undo the work it reports.
 */
export async function sendDirectMessage(
  client: WebClient,
  userId: string,
  content: MessageContent,
  logger: Logger,
): Promise<boolean> {
  try {
    await client.chat.postMessage({ channel: userId, text: content.text, blocks: content.blocks, unfurl_links: false });
    return true;
  } catch (error) {
    logger.warn({ err: error, user: userId }, 'could not send the direct message');
    return false;
  }
}
