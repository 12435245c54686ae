import type { ModalView } from '@slack/types';
import type { WebClient } from '@slack/web-api';
import type { Logger } from '../ops/telemetry/create-logger.js';
import { slackErrorCode } from '../slack/web-api/slack-error-code.js';

/**
 * Replaces an open modal's view. Returns false when Slack refuses, typically because the user closed the
 * modal meanwhile; the caller has other ways to tell them (a DM).
 *
 * `hash`: the version of the view the update was made for (the `view.hash` of the payload that asked for
 * it). When the view has changed since (the user pressed Start, say), Slack answers hash_conflict and the
 * newer view stays: an update that comes late never undoes what the user did meanwhile.
 */
export async function updateModal(
  client: WebClient,
  viewId: string,
  view: ModalView,
  logger: Logger,
  hash?: string,
): Promise<boolean> {
  try {
    await client.views.update({ view_id: viewId, view, ...(hash ? { hash } : {}) });
    return true;
  } catch (error) {
    if (slackErrorCode(error) === 'hash_conflict') {
      logger.info({ viewId }, 'the modal moved on meanwhile: not updated');
      return false;
    }
    logger.info({ err: error, viewId }, 'could not update the modal (closed?)');
    return false;
  }
}
