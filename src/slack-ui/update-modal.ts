import type { ModalView } from '@slack/types';
import type { WebClient } from '@slack/web-api';
import type { Logger } from '../logging/create-logger.js';

/**
 * Replaces an open modal's view. Returns false when Slack refuses, typically because the user closed the
 * modal meanwhile; the caller has other ways to tell them (a DM).
 */
export async function updateModal(
  client: WebClient,
  viewId: string,
  view: ModalView,
  logger: Logger,
): Promise<boolean> {
  try {
    await client.views.update({ view_id: viewId, view });
    return true;
  } catch (error) {
    logger.info({ err: error, viewId }, 'could not update the modal (closed?)');
    return false;
  }
}
