import type { CapabilityStore } from '../../deps.js';
import type { WorkBudget } from '../../platform/slack/admission/work-budget.js';
import type { Logger } from '../../platform/ops/telemetry/create-logger.js';
import type { Job } from '../../platform/ops/lifecycle/scheduler.js';

const DAY_MS = 86_400_000;
/** Rows deleted per statement: each batch is a short transaction, so writers never wait long behind it. */
export const PRUNE_BATCH = 1_000;
const PRUNE_EVERY_MS = 60 * 60 * 1000;

export interface RetentionDeps {
  store: CapabilityStore;
  logger: Logger;
  work: Pick<WorkBudget, 'track'>;
}

/**
 * Deletes the audit entries older than `retentionDays`, in batches, oldest first, and records in the audit
 * log itself how many went (by `system`). Several replicas may prune at once: each batch deletes what is
 * still there, so together they delete each entry once.
 */
export async function pruneAuditLog(deps: RetentionDeps, retentionDays: number, now = new Date()): Promise<number> {
  const before = new Date(now.getTime() - retentionDays * DAY_MS);
  let pruned = 0;
  let batches = 0;
  for (;;) {
    const deleted = await deps.work.track(deps.store.auditLogPages.pruneBatch(before, PRUNE_BATCH));
    pruned += deleted;
    batches += 1;
    if (deleted < PRUNE_BATCH) break;
    await new Promise((resolve) => setImmediate(resolve)); // let requests in between batches
  }
  if (pruned > 0) {
    await deps.store.audit.record({
      actorId: 'system',
      operation: 'audit.prune',
      inputs: { retentionDays, before: before.toISOString() },
      outcome: 'succeeded',
      detail: `${pruned} entr${pruned === 1 ? 'y' : 'ies'} older than ${retentionDays} day${retentionDays === 1 ? '' : 's'} removed in ${batches} batch${batches === 1 ? '' : 'es'}`,
    });
    // Said once the pruning is in the log itself too: whoever reads this line finds the entry.
    deps.logger.info({ pruned, batches, before: before.toISOString(), retentionDays }, 'audit log pruned');
  }
  return pruned;
}

/** Prunes at start and then every hour. Unset retention keeps everything (no job). */
export function retentionJob(deps: RetentionDeps, retentionDays: number | undefined): Job | undefined {
  if (retentionDays === undefined) return undefined;
  return {
    name: 'audit log retention',
    everyMs: PRUNE_EVERY_MS,
    run: () => pruneAuditLog(deps, retentionDays),
    failed: (error) => deps.logger.warn({ err: error }, 'audit log pruning failed; will try again'),
  };
}
