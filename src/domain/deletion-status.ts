import type { DeletionRequest } from '../platform/store/deletion-requests.js';
import { escapeAndCut } from '../platform/blocks/mrkdwn.js';
import { slackDate } from '../platform/blocks/slack-date.js';

/*
 * The words for where a deletion request stands, shared by everything that shows one: the deletion flow's
 * messages and History's details say the same thing in the same words.
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
