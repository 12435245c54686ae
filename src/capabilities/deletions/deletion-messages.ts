import type { ActionsBlock, Button, KnownBlock, ModalView } from '@slack/types';
import { DELETIONS } from './actions.js';
import { type ButtonDeclaration, buttonOf } from '../../platform/slack/pipeline/declarations.js';
import type { DeletionQuorum } from '../../platform/ops/config/config.js';
import type { ApprovalResult } from '../../platform/store/deletion-approvals.js';
import type { DeletionRequest } from '../../platform/store/deletion-requests.js';
import { context, header, message, section, type MessageContent } from '../../platform/blocks/blocks.js';
import { textInput } from '../../platform/blocks/inputs.js';
import { modal } from '../../platform/blocks/modal.js';
import { noticeModal } from '../../platform/blocks/notice-modal.js';
import { cutText, escapeAndCut, escapeMrkdwn, inlineCode, linkUrl } from '../../platform/blocks/mrkdwn.js';
import {
  approvalProgress,
  approvalsMissing,
  approvedByText,
  mentionOrSomeone as by,
  customerCount,
  statusLine,
  dateOrNothing as when,
} from '../../platform/blocks/deletion-status.js';

export {
  approvalProgress,
  approvalsMissing,
  approvedByText,
  customerCount,
  peopleText,
  statusLine,
} from '../../platform/blocks/deletion-status.js';

/*
 * Everything the deletion flow says about a request, in the order a request meets it: the words for counts and
 * approvals, the line on where it stands, the answers to clicks that cannot act, the approval message and its
 * thread, the requester's DMs, and the decision modals.
 */

/** IDs shown in the approval message itself; a longer list goes to its thread. */
export const IDS_IN_MESSAGE = 20;
/** Text per section of an ID list: under the 3000-character limit with room for the code fence. */
const IDS_PER_SECTION_CHARS = 2900;
/** Sections per thread message: ~9k characters keeps below the whole-message size Slack refuses. */
const SECTIONS_PER_THREAD_MESSAGE = 3;

/** " (2 repeated IDs dropped)", or nothing when none were. */
export function repeatsDropped(n: number): string {
  return n > 0 ? ` (${n} repeated ID${n === 1 ? '' : 's'} dropped)` : '';
}

/** "needs 2 approvals", for the approval message; empty when one is enough. */
export function quorumNote(r: Pick<DeletionRequest, 'approvalsNeeded'>): string {
  return r.approvalsNeeded > 1 ? `needs ${r.approvalsNeeded} approvals from different approvers` : '';
}

/** ", 2 approvals needed (3 from 100 customers)" for Home's status line; empty for the default of one. */
export function quorumStatus(quorum: DeletionQuorum): string {
  if (quorum.approvals <= 1 && !quorum.large) return '';
  const large = quorum.large ? ` (${quorum.large.approvals} from ${quorum.large.fromCustomers} customers)` : '';
  return `, ${quorum.approvals} approval${quorum.approvals === 1 ? '' : 's'} needed${large}`;
}

/**
 * The policy in force, as the request form states it: "Nothing is deleted until 2 approvers other than you
 * approve the request (3 from 100 customers up)."; without the settings at hand, what holds under any quorum.
 */
export function approvalRule(quorum: DeletionQuorum | undefined): string {
  if (!quorum) return 'Nothing is deleted until enough approvers other than you approve the request.';
  const who = (n: number) =>
    n === 1 ? 'an approver other than you approves' : `${n} approvers other than you approve`;
  const large = quorum.large ? ` (${quorum.large.approvals} from ${customerCount(quorum.large.fromCustomers)} up)` : '';
  return `Nothing is deleted until ${who(quorum.approvals)} the request${large}.`;
}

/**
 * Said when a click or a form names a request the workspace does not have: never made, or another
 * workspace's (a forged id). Nothing of any other workspace is read to say it.
 */
export function notFoundText(id: string | undefined): string {
  const shown = id ? ` ${escapeMrkdwn(cutText(id, 40))}` : ''; // the id comes from the client
  return `Deletion request${shown} was not found in this workspace. Nothing was changed.`;
}

/** Said to someone who clicks on a request that is no longer waiting for a decision. */
export function alreadyDecidedText(r: DeletionRequest): string {
  switch (r.status) {
    case 'pending':
      return `Request ${r.id} is still waiting for a decision.`;
    case 'rejected':
      return `Request ${r.id} was already rejected by ${by(r.decidedBy)} ${when(r.decidedAt)}.`;
    case 'cancelled':
      return `Request ${r.id} was cancelled by the requester ${when(r.decidedAt)}; it cannot be decided.`;
    case 'expired':
      return `Request ${r.id} expired ${when(r.expiresAt)}; it cannot be decided. The requester can ask again.`;
    default:
      return `Request ${r.id} was already approved by ${approvedByText(r)} ${when(r.decidedAt)}.`;
  }
}

/** Said to an approver who approved this request already (it waits for others). */
export function alreadyApprovedText(r: DeletionRequest): string {
  const missing = approvalsMissing(r);
  return `You already approved request ${r.id} (${approvalProgress(r)}); it waits for ${missing} more approver${missing === 1 ? '' : 's'}.`;
}

/** Why an approval changed nothing: approved before by this user, or no longer open. */
export function approvalRefusedText(result: ApprovalResult, requestId: string): string {
  if (!result.request) return notFoundText(requestId);
  return result.outcome === 'already' ? alreadyApprovedText(result.request) : alreadyDecidedText(result.request);
}

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

/** Where the request came from, when not the form: the message it was asked from, or a workflow. */
function askedFrom(r: DeletionRequest): KnownBlock[] {
  const parts: string[] = [];
  if (r.contextUrl) parts.push(`*Context:* <${linkUrl(r.contextUrl)}|the message it was asked from>`);
  if (r.origin?.startsWith('workflow'))
    parts.push(`Asked by a Workflow Builder workflow on behalf of ${by(r.requesterId)}`);
  return parts.length > 0 ? [context(parts.join(' · '))] : [];
}

/** A declared button acting on the request `r`. */
const button = (r: DeletionRequest, declared: ButtonDeclaration, confirm?: Button['confirm']): Button =>
  buttonOf(declared, { value: r.id, ...(confirm ? { confirm } : {}) });

const confirmDialog = (
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
    elements: [button(r, DELETIONS.buttons.approve), button(r, DELETIONS.buttons.reject)],
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
    elements: [button(r, DELETIONS.buttons.retry, confirm)],
  };
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
    elements: [button(r, DELETIONS.buttons.cancel, confirm)],
  };
}

/**
 * Sections listing every ID in code blocks, none over Slack's per-section limit. The IDs passed the schema
 * when the request was made; they are escaped (and backticks replaced) all the same.
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

/**
 * Whether the requester is told how the request ended in a DM of its own (outcomeMessage): when someone or
 * something else ended it (decided, ran, expired, interrupted). A cancel is their own doing: the DM they
 * cancelled from shows it.
 */
export function outcomeToldApart(r: Pick<DeletionRequest, 'status'>): boolean {
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

/** A DM to the requester when the request is decided or has run. */
export function outcomeMessage(r: DeletionRequest): MessageContent {
  const line = statusLine(r, true);
  return message(`Your deletion request ${r.id}: ${r.status}`, [
    section(`Your request *${r.id}* to delete *${customerCount(r.customerIds.length)}*:\n${line}`),
  ]);
}

/** The rejection modal's optional reason, and its length limit (checked again on submission). */
export const REJECT_REASON_BLOCK = 'reject_reason';
export const MAX_REJECT_REASON_LENGTH = 500;

/**
 * Shows exactly what approving deletes: the count and every ID. Submitting it approves. `metadata` binds the
 * view to the request (signed: see decision-rules.ts).
 */
export function approveView(r: DeletionRequest, metadata: string): ModalView {
  // With a quorum, only the last approval needed runs the deletion; the others are counted.
  const last = approvalsMissing(r) <= 1;
  const progress = approvalProgress(r);
  const customers = r.customerIds.length === 1 ? 'this *1 customer*' : `these *${customerCount(r.customerIds.length)}*`;
  return modal({
    callbackId: DELETIONS.forms.approve.callbackId,
    title: `Approve ${r.id}`,
    submit: last ? `Delete ${customerCount(r.customerIds.length)}` : 'Approve',
    close: 'Cancel',
    privateMetadata: metadata,
    blocks: [
      section(
        `${last ? `:warning: Approving deletes ${customers} for good` : `Your approval is counted, and deletes nothing yet: ${customers} ${r.customerIds.length === 1 ? 'is' : 'are'} deleted for good once ${approvalsMissing(r) - 1 === 1 ? 'one more approver approves' : `${approvalsMissing(r) - 1} more approvers approve`}`}, as <@${r.requesterId}> asked.\n*Reason:* ${escapeAndCut(r.reason, 1500)}`,
      ),
      ...idSections(r.customerIds),
      context(
        last
          ? `The deletion runs once, as soon as you press the button.${progress ? ` ${progress}; yours is the last one needed.` : ''} The requester and the approval channel see the outcome.`
          : `${progress}. The deletion runs once, when the last of the ${r.approvalsNeeded} approvals needed is given.`,
      ),
    ],
  });
}

/** Asks for an optional reason. Submitting it rejects; `metadata` as for approveView. */
export function rejectView(r: DeletionRequest, metadata: string): ModalView {
  return modal({
    callbackId: DELETIONS.forms.reject.callbackId,
    title: `Reject ${r.id}`,
    submit: 'Reject',
    close: 'Cancel',
    privateMetadata: metadata,
    blocks: [
      section(
        `Reject the request of <@${r.requesterId}> to delete *${customerCount(r.customerIds.length)}*? Nothing will be deleted.`,
      ),
      textInput({
        blockId: REJECT_REASON_BLOCK,
        label: 'Why',
        optional: true,
        multiline: true,
        hint: 'The requester and the approval channel see it.',
        maxLength: MAX_REJECT_REASON_LENGTH,
      }),
    ],
  });
}

/** The approval modal after an approval that was counted but is not the last one needed. */
export function approvalRecordedView(r: DeletionRequest): ModalView {
  const missing = approvalsMissing(r);
  return noticeModal(
    `Request ${r.id}`,
    `:ballot_box_with_check: Your approval is recorded: ${approvalProgress(r)}.\nNothing is deleted until ${missing} more approver${missing === 1 ? '' : 's'} approve${missing === 1 ? 's' : ''}; the approval channel shows when.`,
  );
}

/** The approval modal while the deletion its approval started runs. */
export function deletingView(r: DeletionRequest): ModalView {
  return modal({
    title: `Approve ${r.id}`,
    close: 'Close',
    blocks: [
      section(`:hourglass_flowing_sand: Deleting ${customerCount(r.customerIds.length)}…`),
      context('The outcome also shows in the approval channel, so you can close this.'),
    ],
  });
}

/** Said in the modal when a decision view comes back with metadata the app did not sign: nothing is decided. */
export const CHANGED_FORM_TEXT = ':no_entry: This form was changed, so nothing was decided. Open the request again.';

/** The decision modal once the request is decided or its deletion has run: where it stands. */
export function outcomeView(r: DeletionRequest): ModalView {
  return noticeModal(`Request ${r.id}`, statusLine(r));
}
