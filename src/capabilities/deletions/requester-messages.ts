import type { ActionsBlock, KnownBlock } from '@slack/types';
import { DELETIONS } from './actions.js';
import { confirmDialog, requestButton } from './approval-message.js';
import type { DeletionRequest } from '../../platform/store/deletion-requests.js';
import { context, message, section, type MessageContent } from '../../platform/blocks/blocks.js';
import { customerCount, statusLine } from '../../domain/deletion-status.js';

/*
 * What the requester is sent in a DM: the notice that their request waits for approval (with Cancel while it
 * waits), kept up to date in place, and a DM of its own when someone or something else ends it.
 */

/**
 * Whether the requester is told how the request ended in a DM of its own (outcomeMessage): when someone or
 * something else ended it (decided, ran, expired, interrupted). A cancel is their own doing: the DM they
 * cancelled from shows it.
 */
function outcomeToldApart(r: Pick<DeletionRequest, 'status'>): boolean {
  return ['done', 'failed', 'attention', 'rejected', 'expired'].includes(r.status);
}

/**
 * The DM telling the requester where the request waits, with Cancel while it is pending, kept up to date in
 * place. An outcome told apart is not repeated here: the new DM says it (an edit notifies nobody, a new message
 * does), and this one only says where to look, so the requester reads each outcome once.
 */
export function requesterMessage(r: DeletionRequest): MessageContent {
  const where = r.approvalChannelId ? `<#${r.approvalChannelId}>` : 'the approval channel';
  const blocks: KnownBlock[] = [
    section(
      `:inbox_tray: Your request *${r.id}* to delete *${customerCount(r.customerIds.length)}* was sent for approval in ${where}.`,
    ),
    outcomeToldApart(r) ? context(`It has ended: see the message about ${r.id} below.`) : section(statusLine(r, true)),
  ];
  if (r.status === 'pending') blocks.push(cancelButton(r));
  return message(`Your deletion request ${r.id} (${customerCount(r.customerIds.length)}) is ${r.status}.`, blocks);
}

/** Cancel request: in the requester's DM and on their Home tab. */
export function cancelButton(r: DeletionRequest, blockId?: string): ActionsBlock {
  const confirm = confirmDialog(
    'Cancel this request?',
    `Request ${r.id} will not be decided and nothing will be deleted.`,
    'Cancel request',
    'Keep it',
  );
  return {
    type: 'actions',
    ...(blockId ? { block_id: blockId } : {}),
    elements: [requestButton(r, DELETIONS.buttons.cancel, confirm)],
  };
}

/** A DM to the requester when the request is decided or has run. */
export function outcomeMessage(r: DeletionRequest): MessageContent {
  const line = statusLine(r, true);
  return message(`Your deletion request ${r.id}: ${r.status}`, [
    section(`Your request *${r.id}* to delete *${customerCount(r.customerIds.length)}*:\n${line}`),
  ]);
}
