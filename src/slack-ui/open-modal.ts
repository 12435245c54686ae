import type { RespondFn } from '@slack/bolt';
import type { ModalView } from '@slack/types';
import type { WebClient } from '@slack/web-api';
import type { Logger } from '../logging/create-logger.js';
import { slackErrorText } from './slack-error-text.js';
import { type RequestRecord, noteOutcome, requestLogFields, requestOf } from '../observability/request-context.js';

/**
 * Opens a modal with a trigger_id; call it first, before any other I/O: triggers expire 3 s after Slack
 * sends them. When it fails, the user is told (ephemerally, when there is a response_url).
 */
export async function openModal(
  client: WebClient,
  triggerId: string,
  view: ModalView,
  context: { logger: Logger; respond?: RespondFn; request: RequestRecord | undefined },
): Promise<boolean> {
  try {
    await client.views.open({ trigger_id: triggerId, view });
    return true;
  } catch (error) {
    noteOutcome(context.request, 'upstream_error');
    context.logger.warn({ ...requestLogFields(context.request), err: error }, 'could not open the modal');
    const text = `:x: The form could not be opened: ${slackErrorText(error)}`;
    await context
      .respond?.({ response_type: 'ephemeral', text })
      .catch((e: unknown) => context.logger.warn({ err: e }, 'could not tell the user'));
    return false;
  }
}

/**
 * A shortcut or button that opens a form at once (global shortcuts and App Home buttons carry a trigger
 * but no response_url).
 */
export function openForm(form: () => ModalView, logger: Logger) {
  return async ({
    ack,
    body,
    client,
    context,
  }: {
    ack: () => Promise<void>;
    body: { trigger_id: string };
    client: WebClient;
    context: object;
  }): Promise<void> => {
    await ack();
    await openModal(client, body.trigger_id, form(), { logger, request: requestOf(context) });
  };
}
