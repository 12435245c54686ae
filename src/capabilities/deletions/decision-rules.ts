import type { DeletionRequest } from '../../platform/store/deletion-requests.js';
import type { DeletionContext } from './deletion-context.js';
import type { AskSlack } from '../../tenancy/workspaces/approvers.js';
import { alreadyDecidedText } from './deletion-messages.js';

/**
 * Why `userId` may not approve or reject this request now, or undefined when they may: it must be pending
 * and unexpired, they must be an approver (of its workspace), and never the requester. `final`: this is the
 * decision itself, so approver rights are asked from Slack afresh rather than from the cache.
 */
export async function decisionRefusal(
  ctx: DeletionContext,
  request: DeletionRequest,
  userId: string,
  options: { final?: boolean } = {},
): Promise<string | undefined> {
  if (request.status !== 'pending') return alreadyDecidedText(request);
  // The database's clock decides, as it does for the decision itself: every replica gives the same answer.
  if (await ctx.store.deletionRequests.forTeam(request.teamId).hasExpired(request.id))
    return alreadyDecidedText({ ...request, status: 'expired' });
  return approverRefusal(ctx, request, userId, options.final ? 'always' : 'before refusing');
}

/** Why `userId` may not run this request again (it must have failed or been interrupted). */
export async function retryRefusal(
  ctx: DeletionContext,
  request: DeletionRequest,
  userId: string,
): Promise<string | undefined> {
  if (request.status === 'running' || request.status === 'approved')
    return `Request ${request.id} is being deleted right now.`;
  if (request.status !== 'failed' && request.status !== 'attention')
    return `Request ${request.id} has nothing to try again (it is ${request.status}).`;
  return approverRefusal(ctx, request, userId, 'always'); // it runs the deletion at once
}

async function approverRefusal(
  ctx: DeletionContext,
  request: DeletionRequest,
  userId: string,
  askSlack: AskSlack,
): Promise<string | undefined> {
  // The approvers the request was opened with: a later change of the settings neither adds nor removes any.
  const teamId = request.teamId;
  const check = await ctx.approvers.check(userId, { askSlack, among: request.approvers, teamId });
  if (request.requesterId === userId)
    return check.approver
      ? 'You asked for this deletion, so another approver must decide it.'
      : `You asked for this deletion: its approvers decide it (${ctx.approvers.mentions(request.approvers, teamId)}). Nothing was changed.`;
  if (check.approver) return undefined;
  if (check.problem)
    return `Your approver rights could not be checked (${check.problem}). Nothing was changed; try again in a moment.`;
  return `Only the approvers of this request can decide it (${ctx.approvers.mentions(request.approvers, teamId)}). Nothing was changed.`;
}
