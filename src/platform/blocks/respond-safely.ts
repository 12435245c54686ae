import type { RespondArguments, RespondFn } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import type { Logger } from '../ops/telemetry/create-logger.js';
import { numberFieldOf } from '../unknown-fields.js';

export interface Recipient {
  client: WebClient;
  channelId: string | undefined;
  userId: string;
  logger: Logger;
}

/**
 * respond() through the response_url; when Slack refuses it (Bolt 5 throws RespondError, e.g. for an
 * expired URL), the user is told another way: ephemerally in the channel, else as a DM.
 */
export async function respondSafely(
  respond: RespondFn | undefined,
  message: RespondArguments,
  recipient: Recipient,
  fallbackText: string,
): Promise<boolean> {
  if (!respond) {
    // Clicks in App Home or a modal come without a response_url.
    await tellUser(recipient, fallbackText);
    return false;
  }
  try {
    await respond(message);
    return true;
  } catch (error) {
    recipient.logger.warn(
      { err: error, statusCode: numberFieldOf(error, 'statusCode') },
      'response_url refused the message',
    );
    await tellUser(recipient, fallbackText);
    return false;
  }
}

/** An ephemeral note in the channel, or a DM where the bot cannot post in the channel. */
export async function tellUser({ client, channelId, userId, logger }: Recipient, text: string): Promise<void> {
  if (channelId) {
    try {
      await client.chat.postEphemeral({ channel: channelId, user: userId, text });
      return;
    } catch (error) {
      logger.info({ err: error }, 'could not post an ephemeral note; sending a DM');
    }
  }
  await client.chat
    .postMessage({ channel: userId, text })
    .catch((error: unknown) => logger.warn({ err: error }, 'could not tell the user'));
}
