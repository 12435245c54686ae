import type { WebClient } from '@slack/web-api';
import { noticeModal } from '../../platform/blocks/notice-modal.js';
import { openModal } from '../../platform/blocks/open-modal.js';
import type { ButtonRequest } from '../../platform/slack/pipeline/listen.js';
import { type DeletionContext, notConfiguredText } from './deletion-context.js';
import { boxesOf, deletionRequestView, signedSourceOf } from './deletion-request-form.js';

/** What opening the request form needs of a shortcut or a button. */
interface FormOpener {
  body: { trigger_id: string };
  client: WebClient;
  teamId: string;
}

/**
 * The global shortcut and Home's "Request deletion": the request form, in the workspace asked from (or why it
 * cannot be asked there).
 */
export function openRequestForm(ctx: DeletionContext) {
  return async ({ body, client, teamId }: FormOpener): Promise<void> => {
    const configured = ctx.settingsIn(teamId);
    const view = configured.ok
      ? deletionRequestView({ quorum: configured.settings.quorum })
      : noticeModal('Request deletion', notConfiguredText(configured.missing, ctx.setUpBy));
    await openModal(client, body.trigger_id, view);
  };
}

/** The request form's "Add another box for IDs": another box for IDs, what was typed and the linked message kept. */
export function addIdsBox(ctx: DeletionContext) {
  return async ({ body, client, teamId }: ButtonRequest): Promise<void> => {
    const view = body.view;
    if (!view) return;
    const configured = ctx.settingsIn(teamId);
    // Same block ids as before: Slack keeps what was typed in the existing boxes.
    await client.views
      .update({
        view_id: view.id,
        hash: view.hash,
        view: deletionRequestView({
          boxes: boxesOf(view.private_metadata) + 1,
          ...keptSource(view.private_metadata),
          quorum: configured.ok ? configured.settings.quorum : undefined,
        }),
      })
      .catch((error: unknown) => ctx.logger.info({ err: error }, 'could not add a box (the view changed meanwhile)'));
  };
}

/** The message a form was opened from, carried over when the form is rebuilt. */
function keptSource(privateMetadata: string | undefined): { source?: string } {
  const source = signedSourceOf(privateMetadata);
  return source ? { source } : {};
}
