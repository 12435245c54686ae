import type { MessageShortcut } from '@slack/bolt';
import { noticeModal } from '../../platform/blocks/notice-modal.js';
import { openModal } from '../../platform/blocks/open-modal.js';
import { withDeadline } from '../../platform/ops/lifecycle/with-deadline.js';
import type { ShortcutRequest } from '../../platform/slack/pipeline/listen.js';
import { type DeletionContext, notConfiguredText } from './deletion-context.js';
import { LEFT_OUT_LISTED, type LeftOut, deletionRequestView } from './deletion-request-form.js';
import { customerIdsInMessage, signSource } from './message-source.js';

type Args = ShortcutRequest<MessageShortcut>;

/**
 * How long the form waits to know which IDs were deleted already: the trigger lasts 3 s from the click, and the
 * form must open within it (it opens with every ID, saying so, when the answer is late).
 */
const DELETED_CHECK_MS = 1_200;

/**
 * "Request deletion" on a message: the request form, opened at once (the trigger lasts 3 s),
 * prefilled with the customer IDs found in the message, but those a deletion of the workspace deleted already,
 * which it names; the message is linked for the approvers when the request is submitted.
 */
export function openFormFromMessage(ctx: DeletionContext) {
  return async ({ shortcut, client, teamId }: Args): Promise<void> => {
    const ids = customerIdsInMessage(shortcut.message.text ?? '');
    const configured = ctx.settingsIn(teamId);
    if (!configured.ok) {
      await openModal(
        client,
        shortcut.trigger_id,
        noticeModal('Request deletion', notConfiguredText(configured.missing, ctx.setUpBy)),
      );
      return;
    }
    const { prefill, leftOut } = await withoutDeleted(ctx, teamId, ids);
    const problem =
      ids.length === 0
        ? 'No customer IDs were found in the message. Enter them below.'
        : prefill.length === 0
          ? 'Every customer ID found in the message was deleted already (listed below). Enter the IDs to delete.'
          : undefined;
    const view = deletionRequestView({
      prefill,
      quorum: configured.settings.quorum,
      source: signSource(ctx.decisionKeys, teamId, { channel: shortcut.channel.id, ts: shortcut.message.ts }),
      leftOut,
      ...(problem ? { problem } : {}),
    });
    await openModal(client, shortcut.trigger_id, view);
  };
}

/**
 * The IDs to prefill: those found, but those a finished deletion of the workspace named (the app's own record:
 * nothing else says a customer is gone), which are left out and named. A customer made again with the same ID
 * is the requester's to type back in. When the record does not answer in time, every ID is kept, and the form
 * says it could not check.
 */
async function withoutDeleted(
  ctx: DeletionContext,
  teamId: string,
  ids: readonly string[],
): Promise<{ prefill: readonly string[]; leftOut: LeftOut | undefined }> {
  if (ids.length === 0) return { prefill: ids, leftOut: undefined };
  let deleted: Map<string, string>;
  try {
    deleted = await withDeadline(ctx.store.deletionRequests.forTeam(teamId).deletedAlready(ids), DELETED_CHECK_MS);
  } catch (error) {
    ctx.logger.warn({ err: error }, 'could not check which customers of a message were deleted already');
    return { prefill: ids, leftOut: { unchecked: true } };
  }
  const gone = ids.flatMap((id) => {
    const requestId = deleted.get(id);
    return requestId ? [{ id, requestId }] : [];
  });
  if (gone.length === 0) return { prefill: ids, leftOut: undefined };
  return {
    prefill: ids.filter((id) => !deleted.has(id)),
    leftOut: { listed: gone.slice(0, LEFT_OUT_LISTED), count: gone.length },
  };
}
