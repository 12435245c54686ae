import { SYSTEM_ACTOR } from '../../platform/store/bulk-jobs/jobs.js';
import type { BulkContext } from './bulk-context.js';

/** Why the jobs of a workspace that removed the app stopped: on each job, and in its audit entry. */
export const REMOVED_NOTE = 'the app was removed from the workspace';
/** What each row that was never sent says in the results. */
export const REMOVED_ROW_ERROR = 'not sent: the app was removed from the workspace';

/**
 * A workspace removed the app: its running and paused jobs stop at once (cancelled by the app, with the
 * reason), their rows not yet sent are never sent and say why, rows being sent end as they end; each stop is
 * audited. Its unstarted drafts (rows of the customer's file) go. Other workspaces' jobs are not touched.
 */
export async function stopWorkspaceJobs(ctx: Pick<BulkContext, 'store' | 'logger'>, teamId: string): Promise<void> {
  const { stopped, drafts } = await ctx.store.transaction(async (tx) => {
    const jobs = tx.bulkJobs.inTeam(teamId);
    const ended = await jobs.stopAll({ by: SYSTEM_ACTOR, note: REMOVED_NOTE, rowError: REMOVED_ROW_ERROR });
    for (const job of ended) {
      await tx.audit.record({
        actorId: SYSTEM_ACTOR,
        teamId,
        operation: 'bulk.cancel',
        inputs: { jobId: job.id },
        outcome: 'cancelled',
        detail: REMOVED_NOTE,
      });
    }
    return { stopped: ended, drafts: await jobs.deleteDraftsBefore(new Date()) };
  });
  ctx.logger.info(
    { team: teamId, jobs: stopped.map((job) => job.id), drafts },
    'bulk jobs of a workspace that removed the app stopped',
  );
}
