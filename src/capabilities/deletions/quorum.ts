import type { DeletionQuorum } from '../../platform/ops/config/config.js';
import { customerCount } from './customer-count.js';
import type { DeletionRequest } from '../../platform/store/deletion-requests.js';

/*
 * Multi-party approval: a request needs DELETION_QUORUM distinct approvers (DELETION_QUORUM_LARGE from
 * DELETION_LARGE_AT customers up; admins change both in Settings), never counting the requester, and one
 * rejection rejects it. The number is fixed on the request when it is made, so changing the settings never
 * changes what a pending request needs. These are the policy and the words every message uses for it.
 */

/** Approvals a request of `customers` customers needs under `quorum`. */
export function approvalsNeeded(quorum: DeletionQuorum, customers: number): number {
  return quorum.large && customers >= quorum.large.fromCustomers ? quorum.large.approvals : quorum.approvals;
}

/**
 * Why a request of `requesterId` could never gather `needed` approvals, or undefined when it can: approvers
 * named only one by one (no user group that could grow), too few of them besides the requester. Said before
 * anything is stored, so nothing waits for approvals that cannot come.
 */
export function unreachableQuorum(
  approvers: { users: readonly string[]; userGroups: readonly string[] },
  requesterId: string,
  needed: number,
): string | undefined {
  if (approvers.userGroups.length > 0) return undefined;
  const others = approvers.users.filter((u) => u !== requesterId).length;
  if (others >= needed) return undefined;
  return `This request needs ${needed === 1 ? '1 approval' : `${needed} approvals from different approvers`}, but only ${others} of the approvers could approve a request of yours (the requester never counts), so nothing was recorded. Ask a settings admin (Settings on the app's Home) or the app's operator to add approvers or lower the quorum.`;
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

/** How many more approvals a pending request needs. */
export function approvalsMissing(r: Pick<DeletionRequest, 'approvalsNeeded' | 'approverIds'>): number {
  return Math.max(0, r.approvalsNeeded - r.approverIds.length);
}
