import type { DeletionRequest } from '../../platform/store/deletion-requests.js';
import type { DeletionContext } from './deletion-context.js';

/**
 * Brings up to date, in the background, every Home that shows this request: its requester's (their requests
 * waiting, their activity, which follows the request's status), its approvers' (the requests waiting for them:
 * it comes, shows its approvals so far, and goes once it has ended), and those of whoever approved or decided
 * it. Only these people's Homes in the request's workspace are read; nobody else's.
 */
export async function refreshHomesShowing(
  ctx: Pick<DeletionContext, 'approvers' | 'home'>,
  request: Pick<DeletionRequest, 'teamId' | 'requesterId' | 'approverIds' | 'decidedBy' | 'runBy' | 'approvers'>,
): Promise<void> {
  const people = await ctx.approvers.everyoneKnown(request.approvers, request.teamId);
  for (const person of [request.requesterId, ...request.approverIds, request.decidedBy, request.runBy])
    if (person) people.add(person);
  ctx.home.refreshIn(request.teamId, people);
}
