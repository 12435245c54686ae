import type { ActionsBlock, Button, KnownBlock } from '@slack/types';
import { DELETIONS } from './actions.js';
import { type ButtonDeclaration, buttonOf } from '../../platform/slack/pipeline/declarations.js';
import type { DeletionRequest } from '../../platform/store/deletion-requests.js';
import { context, header, message, section, type MessageContent } from '../../platform/blocks/blocks.js';
import { escapeAndCut, escapeMrkdwn, inlineCode, linkUrl } from '../../platform/blocks/mrkdwn.js';
import {
  mentionOrSomeone as by,
  customerCount,
  statusLine,
  dateOrNothing as when,
} from '../../domain/deletion-status.js';

/*
 * The approval message in the approval channel: what approvers read of a request (who asks, how many customers,
 * why, the policy, where it stands), its buttons (Approve… / Reject… while it waits, "Try the deletion again"
 * once it failed: the same buttons Home shows), and the thread that carries the full list of IDs. Posted when
 * the request is opened (open-request.ts), rebuilt from the request at every change (request-transitions.ts).
 */

/** IDs shown in the approval message itself; a longer list goes to its thread. */
const IDS_IN_MESSAGE = 20;
/** Text per section of an ID list: under the 3000-character limit with room for the code fence. */
const IDS_PER_SECTION_CHARS = 2900;
/** Sections per thread message: ~9k characters keeps below the whole-message size Slack refuses. */
const SECTIONS_PER_THREAD_MESSAGE = 3;

/** The message in the approval channel; its buttons follow the status. */
export function approvalMessage(r: DeletionRequest, approvers: string): MessageContent {
  const count = r.customerIds.length;
  const shown = r.customerIds
    .slice(0, IDS_IN_MESSAGE)
    .map((id) => inlineCode(id))
    .join(', ');
  const more = count > IDS_IN_MESSAGE ? `, and ${count - IDS_IN_MESSAGE} more: the full list is in the thread` : '';
  const blocks: KnownBlock[] = [
    header(`Customer deletion request ${r.id}`),
    section(
      `${by(r.requesterId)} asks to delete *${customerCount(count)}*${repeatsDropped(r.duplicatesRemoved)}.\n*Reason:* ${escapeAndCut(r.reason, 1500)}`,
    ),
    section(`*Customers:* ${shown}${more}`),
    ...askedFrom(r),
    context(
      [
        `Requested ${when(r.createdAt)}`,
        `approvers: ${approvers || 'none configured'}`,
        quorumNote(r),
        'the requester cannot approve their own request',
      ]
        .filter(Boolean)
        .join(' · '),
    ),
    section(statusLine(r)),
  ];
  const actions =
    r.status === 'pending'
      ? decisionButtons(r)
      : r.status === 'failed' || r.status === 'attention'
        ? retryButtons(r)
        : undefined;
  if (actions) blocks.push(actions);
  return message(
    `Customer deletion request ${r.id} by <@${r.requesterId}>: ${customerCount(count)} (${r.status})`,
    blocks,
  );
}

/** " (2 repeated IDs dropped)", or nothing when none were. */
export function repeatsDropped(n: number): string {
  return n > 0 ? ` (${n} repeated ID${n === 1 ? '' : 's'} dropped)` : '';
}

/** "needs 2 approvals", for the approval message; empty when one is enough. */
function quorumNote(r: Pick<DeletionRequest, 'approvalsNeeded'>): string {
  return r.approvalsNeeded > 1 ? `needs ${r.approvalsNeeded} approvals from different approvers` : '';
}

/** Where the request came from, when not the form: the message it was asked from, or a workflow. */
function askedFrom(r: DeletionRequest): KnownBlock[] {
  const parts: string[] = [];
  if (r.contextUrl) parts.push(`*Context:* <${linkUrl(r.contextUrl)}|the message it was asked from>`);
  if (r.origin?.startsWith('workflow'))
    parts.push(`Asked by a Workflow Builder workflow on behalf of ${by(r.requesterId)}`);
  return parts.length > 0 ? [context(parts.join(' · '))] : [];
}

/** A declared button acting on the request `r` (its value is the request's id). */
export const requestButton = (r: DeletionRequest, declared: ButtonDeclaration, confirm?: Button['confirm']): Button =>
  buttonOf(declared, { value: r.id, ...(confirm ? { confirm } : {}) });

/** The dialog Slack shows before a button that cannot be taken back acts. */
export const confirmDialog = (
  title: string,
  text: string,
  confirm: string,
  deny: string,
  style?: 'danger',
): Button['confirm'] => ({
  title: { type: 'plain_text', text: title },
  text: { type: 'plain_text', text },
  confirm: { type: 'plain_text', text: confirm },
  deny: { type: 'plain_text', text: deny },
  ...(style ? { style } : {}),
});

/** Approve… / Reject…: on the approval message and on approvers' Home tabs (the same handlers). */
export function decisionButtons(r: DeletionRequest, blockId?: string): ActionsBlock {
  return {
    type: 'actions',
    ...(blockId ? { block_id: blockId } : {}),
    elements: [requestButton(r, DELETIONS.buttons.approve), requestButton(r, DELETIONS.buttons.reject)],
  };
}

/** "Try the deletion again" of a failed request: on its approval message and on its approvers' Homes. */
export function retryButtons(r: DeletionRequest, blockId?: string): ActionsBlock {
  const confirm = confirmDialog(
    'Send the deletion again?',
    `This sends the deletion of ${customerCount(r.customerIds.length)} to the Mint service again.`,
    'Try again',
    'Not now',
    'danger',
  );
  return {
    type: 'actions',
    ...(blockId ? { block_id: blockId } : {}),
    elements: [requestButton(r, DELETIONS.buttons.retry, confirm)],
  };
}

/**
 * Sections listing every ID in code blocks, none over Slack's per-section limit (the thread's, and the approve
 * modal's). The IDs passed the schema when the request was made; they are escaped (and backticks replaced) all
 * the same.
 */
export function idSections(ids: readonly string[]): KnownBlock[] {
  const sections: KnownBlock[] = [];
  let chunk: string[] = [];
  let length = 0;
  for (const id of ids.map((raw) => escapeMrkdwn(raw.replace(/`/g, "'")))) {
    if (chunk.length > 0 && length + id.length + 2 > IDS_PER_SECTION_CHARS) {
      sections.push(section(`\`\`\`${chunk.join(', ')}\`\`\``));
      chunk = [];
      length = 0;
    }
    chunk.push(id);
    length += id.length + 2;
  }
  if (chunk.length > 0) sections.push(section(`\`\`\`${chunk.join(', ')}\`\`\``));
  return sections;
}

/** The full list for the approval message's thread, when the message shows only part of it. */
export function fullListMessages(r: DeletionRequest): MessageContent[] {
  if (r.customerIds.length <= IDS_IN_MESSAGE) return [];
  const sections = idSections(r.customerIds);
  const parts = Math.ceil(sections.length / SECTIONS_PER_THREAD_MESSAGE);
  return Array.from({ length: parts }, (_, i) => {
    const title = `All ${customerCount(r.customerIds.length)} of request ${r.id}${parts > 1 ? `, part ${i + 1} of ${parts}` : ''}`;
    return message(title, [
      context(`*${title}*`),
      ...sections.slice(i * SECTIONS_PER_THREAD_MESSAGE, (i + 1) * SECTIONS_PER_THREAD_MESSAGE),
    ]);
  });
}
