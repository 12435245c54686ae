import type { DeletionContext } from './deletion-context.js';

/** Why the requests of a workspace that removed the app were cancelled (the request's note, and the audit's). */
export const APP_REMOVED_NOTE = 'the app was removed from the workspace';

/**
 * The workspace removed the app (app_uninstalled, or its bot token revoked): none of its deletion requests may
 * wait any more. Its pending requests are cancelled, each with its audit entry, and the workflow steps waiting
 * on its requests are ended for good (never tried again), all in one transaction. Slack is not told: the
 * workspace's token is gone. Nothing of another workspace changes.
 */
export async function cancelWorkspaceDeletions(ctx: Pick<DeletionContext, 'store' | 'logger'>, teamId: string) {
  const { cancelled, steps } = await ctx.store.transaction(async (tx) => {
    const cancelled = await tx.deletionRequests.forTeam(teamId).cancelAllPending('system', APP_REMOVED_NOTE);
    for (const r of cancelled)
      await tx.audit.record({
        actorId: 'system',
        teamId,
        operation: 'customers.delete.cancel',
        inputs: { requestId: r.id, customers: r.customerIds.length },
        outcome: 'cancelled',
        detail: APP_REMOVED_NOTE,
      });
    return { cancelled, steps: await tx.stepCompletions.endAllOf(teamId) };
  });
  ctx.logger.info(
    { team: teamId, cancelled: cancelled.map((r) => r.id), workflowSteps: steps },
    'the app was removed from a workspace: its pending deletion requests are cancelled',
  );
}
