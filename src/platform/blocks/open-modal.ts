import type { ModalView } from '@slack/types';
import type { WebClient } from '@slack/web-api';
import { upstreamFailed } from '../slack/pipeline/request-ended.js';
import { slackErrorText } from './slack-error-text.js';

/**
 * Opens a modal with a trigger_id; call it first, before any other slow work: triggers expire 3 s after Slack
 * sends them. When Slack refuses, the request ends there and the person is told why (by the pipeline).
 */
export async function openModal(client: WebClient, triggerId: string, view: ModalView): Promise<void> {
  await openModalToUpdate(client, triggerId, view);
}

/**
 * openModal for a modal that shows a notice ("Checking…") while slower work goes on: resolves with the id of
 * the view, to update it with the outcome (undefined if Slack's answer had none).
 */
export async function openModalToUpdate(
  client: WebClient,
  triggerId: string,
  view: ModalView,
): Promise<string | undefined> {
  try {
    const opened = await client.views.open({ trigger_id: triggerId, view });
    return opened.view?.id;
  } catch (error) {
    throw upstreamFailed(`:x: The form could not be opened: ${slackErrorText(error)}`, {
      log: 'could not open the modal',
      cause: error,
    });
  }
}

/**
 * Pushes a view over the modal a button was clicked in, with the click's trigger_id: Close comes back to that
 * modal (a modal's stack holds three views at most). When Slack refuses, the
 * request ends there and the person is told why.
 */
export async function pushModal(client: WebClient, triggerId: string, view: ModalView): Promise<void> {
  try {
    await client.views.push({ trigger_id: triggerId, view });
  } catch (error) {
    throw upstreamFailed(`:x: The form could not be opened: ${slackErrorText(error)}`, {
      log: 'could not push the modal',
      cause: error,
    });
  }
}

/** A shortcut or button that opens a form at once (both come acknowledged by the pipeline). */
export function openForm(form: () => ModalView) {
  return ({ body, client }: { body: { trigger_id: string }; client: WebClient }): Promise<void> =>
    openModal(client, body.trigger_id, form());
}
