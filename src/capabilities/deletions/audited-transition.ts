import type { Transition, WorkspaceDeletionRequests } from '../../platform/store/deletion-requests.js';
import type { DeletionContext } from './deletion-context.js';

/**
 * A change of a request's status and its audit entry, in one transaction: both are written, or neither.
 * Only the caller that wins the compare-and-set writes an entry. `change` sees the requests of workspace
 * `teamId` only.
 */
export async function auditedTransition(
  ctx: Pick<DeletionContext, 'store'>,
  teamId: string,
  actorId: string,
  operation: string,
  change: (requests: WorkspaceDeletionRequests) => Promise<Transition>,
): Promise<Transition> {
  return ctx.store.transaction(async (tx) => {
    const result = await change(tx.deletionRequests.forTeam(teamId));
    if (result.won) {
      const r = result.request;
      await tx.audit.record({
        actorId,
        teamId,
        operation,
        inputs: { requestId: r.id, customers: r.customerIds.length },
        outcome: r.status,
        detail: r.decisionNote ?? r.outcomeDetail,
      });
    }
    return result;
  });
}
