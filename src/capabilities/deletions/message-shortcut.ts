import type { MessageShortcut } from '@slack/bolt';
import { noticeModal } from '../../platform/blocks/notice-modal.js';
import { openModal } from '../../platform/blocks/open-modal.js';
import type { ShortcutRequest } from '../../platform/slack/pipeline/listen.js';
import { type DeletionContext, notConfiguredText } from './deletion-context.js';
import { deletionRequestView } from './deletion-request-form.js';
import { customerIdsInMessage, signSource } from './message-source.js';

type Args = ShortcutRequest<MessageShortcut>;

/**
 * "Request deletion" on a message: the request form, opened at once (the trigger lasts 3 s),
 * prefilled with the customer IDs found in the message, which is linked for the approvers when the request
 * is submitted.
 */
export function openFormFromMessage(ctx: DeletionContext) {
  return async ({ shortcut, client, teamId }: Args): Promise<void> => {
    const ids = customerIdsInMessage(shortcut.message.text ?? '');
    const configured = ctx.settingsIn(teamId);
    const view = !configured.ok
      ? noticeModal('Request deletion', notConfiguredText(configured.missing, ctx.setUpBy))
      : deletionRequestView({
          prefill: ids,
          quorum: configured.settings.quorum,
          source: signSource(ctx.decisionKeys, teamId, { channel: shortcut.channel.id, ts: shortcut.message.ts }),
          ...(ids.length === 0 ? { problem: 'No customer IDs were found in the message. Enter them below.' } : {}),
        });
    await openModal(client, shortcut.trigger_id, view);
  };
}
