import type { DeletionRequest } from '../../platform/store/deletion-requests.js';
import type { DeletionContext } from './deletion-context.js';
import { auditedTransition, publishAndNotify } from './request-transitions.js';
import type { Job } from '../../platform/ops/lifecycle/scheduler.js';

export interface SweeperTiming {
  /** A run older than this cannot still be going (its Mint call has a time budget). */
  leaseMs: number;
  intervalMs: number;
}

/** The longest a deletion run can take: the Mint call's budget (retries included) and some slack. */
export function sweeperTiming(mintTimeoutMs: number): SweeperTiming {
  const leaseMs = 2 * mintTimeoutMs + 2_000;
  return { leaseMs, intervalMs: Math.min(30_000, Math.max(1_000, Math.floor(leaseMs / 2))) };
}

/**
 * Keeps requests from getting silently stuck: pending ones past their expiry become expired, and runs whose
 * process died (approved or running for longer than any run can take) are marked for attention, with a
 * retry button on the approval message. Every replica may sweep: each change is a compare-and-set, so one
 * of them makes it and tells Slack. Expiry and staleness are judged by the database's clock, not this
 * process's: a replica whose clock runs ahead must not find a run stale that another replica is still doing.
 *
 * Requests of every workspace are swept; each is changed in its own workspace and told to that workspace's
 * Slack with its own token (a workspace that is gone is not told; it is logged once).
 */
export async function sweepDeletionRequests(ctx: DeletionContext, timing: SweeperTiming): Promise<void> {
  const requests = ctx.store.deletionRequests;
  for (const { teamId, id } of await requests.overdue()) {
    const result = await auditedTransition(ctx, teamId, 'system', 'customers.delete.expire', (r) => r.expire(id));
    if (result.won) await tell(ctx, result.request);
  }
  for (const { teamId, id } of await requests.staleRuns(timing.leaseMs)) {
    const result = await auditedTransition(ctx, teamId, 'system', 'customers.delete.interrupted', (r) =>
      r.interrupt(id, timing.leaseMs),
    );
    if (result.won) {
      ctx.logger.warn({ requestId: id, team: teamId }, 'a deletion was interrupted; marked for attention');
      await tell(ctx, result.request);
    }
  }
}

/** Shows the change in the request's workspace, and tells its requester. */
async function tell(ctx: DeletionContext, request: DeletionRequest): Promise<void> {
  const slack = await ctx.reach.slack(request.teamId);
  if (slack) await publishAndNotify(ctx, slack, request);
}

/** Sweeps at once (catching what a previous process left) and then every interval (a job of the scheduler). */
export function deletionSweeperJob(ctx: DeletionContext, timing: SweeperTiming): Job {
  return {
    name: 'deletion sweeper',
    everyMs: timing.intervalMs,
    run: () => sweepDeletionRequests(ctx, timing),
    failed: (error) => ctx.logger.warn({ err: error }, 'deletion sweep failed; will try again'),
  };
}
