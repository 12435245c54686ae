import type { ActionsBlock, Button, KnownBlock } from '@slack/types';
import { context, header, message, section, type MessageContent } from '../../platform/blocks/blocks.js';
import { escapeAndCut, escapeMrkdwn, inlineCode, linkUrl } from '../../platform/blocks/mrkdwn.js';
import { slackDate } from '../../platform/blocks/slack-date.js';
import { type ButtonDeclaration, buttonOf } from '../../platform/slack/pipeline/declarations.js';
import type { DeletionRequest } from '../../platform/store/deletion-requests.js';
import { DELETIONS } from './actions.js';

/*
 * A request's messages, in the order a request meets them: the words for where it stands, the approval message in
 * the approval channel, and the requester's DMs.
 */

/*
 * The words for where a request stands, said alike by every message that shows one (and by History's Details,
 * which asks for them through OfferedDecisions).
 */

/** A person as a mention, or "someone" when not recorded. */
export const mentionOrSomeone = (user: string | undefined) => (user ? `<@${user}>` : 'someone');
/** A date as Slack shows it, or nothing when not recorded. */
export const dateOrNothing = (date: Date | undefined) => (date ? slackDate(date) : '');

/** "1 customer", "3 customers". */
export function customerCount(n: number): string {
  return `${n} customer${n === 1 ? '' : 's'}`;
}

const mention = (user: string) => `<@${user}>`;

/** "<@ana>", "<@ana> and <@bob>", "<@ana>, <@bob> and <@cy>". */
export function peopleText(users: readonly string[]): string {
  const mentions = users.map((user) => mention(user));
  return mentions.length <= 1 ? (mentions[0] ?? '') : `${mentions.slice(0, -1).join(', ')} and ${mentions.at(-1)}`;
}

/** Who approved a request: every approver when it took several, else the one who decided. */
export function approvedByText(r: DeletionRequest): string {
  if (r.approverIds.length > 0) return peopleText(r.approverIds);
  return r.decidedBy ? mention(r.decidedBy) : 'someone';
}

/** "*1 of 2 approvals*: <@ana>", "*0 of 2 approvals* so far"; empty for a request that needs one and has none. */
export function approvalProgress(r: Pick<DeletionRequest, 'approvalsNeeded' | 'approverIds'>): string {
  const count = r.approverIds.length;
  if (r.approvalsNeeded <= 1 && count === 0) return '';
  const head = `*${count} of ${r.approvalsNeeded} approval${r.approvalsNeeded === 1 ? '' : 's'}*`;
  return count > 0 ? `${head}: ${peopleText(r.approverIds)}` : `${head} so far`;
}

/** How many more approvals a pending request needs. */
export function approvalsMissing(r: Pick<DeletionRequest, 'approvalsNeeded' | 'approverIds'>): number {
  return Math.max(0, r.approvalsNeeded - r.approverIds.length);
}

/**
 * One line on where a request stands, for every message that shows it. `toRequester`: said to the person who
 * asked (their DMs): their own cancel reads "You cancelled it", and a failure says what they can do.
 */
export function statusLine(r: DeletionRequest, toRequester = false): string {
  const approved = `*Approved* by ${approvedByText(r)} ${dateOrNothing(r.decidedAt)}`;
  const progress = approvalProgress(r);
  const detail = r.outcomeDetail ? escapeAndCut(r.outcomeDetail, 600) : '';
  switch (r.status) {
    case 'pending':
      return `:hourglass_flowing_sand: *Waiting for approval* until ${dateOrNothing(r.expiresAt)}.${progress ? ` ${progress}.` : ''}`;
    case 'approved':
      return `:arrow_forward: ${approved}. Deleting…`;
    case 'running':
      return r.attempts > 1
        ? `:arrow_forward: ${approved}. Trying again (attempt ${r.attempts}, started by ${mentionOrSomeone(r.runBy)})…`
        : `:arrow_forward: ${approved}. Deleting…`;
    case 'done':
      // The service's answer is not specified: when its counts were read, the line above says them; otherwise
      // what it answered is shown as it came.
      return `:white_check_mark: ${approved}. ${deletedText(r)}${detail && r.notFoundCount === undefined ? `\nThe service answered: ${detail}` : ''}`;
    case 'failed':
      return toRequester
        ? `:warning: ${approved}, but *the deletion failed* ${dateOrNothing(r.finishedAt)}: ${withoutRetryAdvice(detail)}\nOnly an approver can try it again (no new approval needed): ask one of them${r.approvalChannelId ? ` in <#${r.approvalChannelId}>` : ''} if it is not done.`
        : `:warning: ${approved}, but *the deletion failed* ${dateOrNothing(r.finishedAt)}: ${detail}\nAn approver can try again (no new approval needed).`;
    case 'attention':
      return r.outcomeDetail?.startsWith('the app could not record')
        ? `:rotating_light: ${approved}, but ${detail}. An approver can try again once the app is back (no new approval needed).`
        : `:rotating_light: ${approved}, but *the app stopped during the deletion*: it is not known whether the customers were deleted. An approver can try again (no new approval needed).`;
    case 'rejected':
      return `:no_entry_sign: *Rejected* by ${mentionOrSomeone(r.decidedBy)} ${dateOrNothing(r.decidedAt)}.${r.decisionNote ? ` Reason: ${escapeAndCut(r.decisionNote, 600)}` : ''}`;
    case 'cancelled':
      return toRequester
        ? `:heavy_multiplication_x: *You cancelled it* ${dateOrNothing(r.decidedAt)}. Nothing was deleted.`
        : `:heavy_multiplication_x: *Cancelled* by the requester ${dateOrNothing(r.decidedAt)}. Nothing was deleted.`;
    case 'expired':
      return `:hourglass: *Expired* ${dateOrNothing(r.expiresAt)} without a decision. Nothing was deleted.`;
  }
}

/** What a finished deletion did, as a sentence: customers the service did not find are not counted as deleted. */
function deletedText(r: DeletionRequest): string {
  const at = dateOrNothing(r.finishedAt);
  const missing = r.notFoundCount ?? 0;
  const deleted = r.customerIds.length - missing;
  if (missing === 0) return `*Deleted* ${customerCount(deleted)} ${at}.`;
  const wasNotFound = missing === 1 ? 'was not found' : 'were not found';
  if (deleted === 0)
    return `*Nothing deleted* ${at}: ${missing === 1 ? 'the customer' : `the ${missing} customers`} ${wasNotFound}.`;
  return `*Deleted* ${customerCount(deleted)} ${at}; ${missing} ${wasNotFound}.`;
}

/**
 * The Mint service's failure as the requester reads it: its advice to try again is for whoever can (the
 * approvers), so it is left out; the rest (what failed, what the service said) stays.
 */
function withoutRetryAdvice(detail: string): string {
  return detail.replace(/ ?Try again in [^.:]*\./g, '').replace(/ ?[Tt]ry again in a moment\./g, '');
}

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
      `${mentionOrSomeone(r.requesterId)} asks to delete *${customerCount(count)}*${repeatsDropped(r.duplicatesRemoved)}.\n*Reason:* ${escapeAndCut(r.reason, 1500)}`,
    ),
    section(`*Customers:* ${shown}${more}`),
    ...askedFrom(r),
    context(
      [
        `Requested ${dateOrNothing(r.createdAt)}`,
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
    parts.push(`Asked by a Workflow Builder workflow on behalf of ${mentionOrSomeone(r.requesterId)}`);
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
