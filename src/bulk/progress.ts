import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { BulkJob } from '../store/bulk-jobs.js';
import type { BulkContext } from './bulk-context.js';
import { progressMessage } from './progress-message.js';

/** A progress message is updated at most once in this time, by whichever process gets to it. */
export const PROGRESS_GAP_MS = 2_000;
/** How often each process looks for jobs whose message is due an update. */
const TICK_MS = 500;
/** The rate is read over this much of the recent past. */
const RATE_WINDOW_MS = 60_000;

/**
 * Brings a job's progress message up to date, if no process did so in the last PROGRESS_GAP_MS (a
 * compare-and-set on the job) and if what it shows changed. Returns false when the gap had not passed.
 */
export async function updateProgress(ctx: BulkContext, jobId: string, now = new Date()): Promise<boolean> {
  const before = await ctx.store.bulkJobs.get(jobId);
  if (!before?.messageChannel || !before.messageTs) return true; // not posted (yet): nothing to update
  // A paused job changes only when someone acts on it: shown once after that, not every 2 s.
  if (before.status === 'paused' && before.progressAt && before.updatedAt <= before.progressAt) return true;
  if (!(await ctx.store.bulkJobs.claimProgress(jobId, PROGRESS_GAP_MS, now))) return false;
  const job = await ctx.store.bulkJobs.get(jobId);
  if (!job?.messageChannel || !job.messageTs) return true;
  const content = progressMessage({
    job,
    counts: await ctx.store.bulkJobs.counts(jobId),
    ratePerSecond: await ratePerSecond(ctx, job, now),
    mint: ctx.mintApi.status,
    now,
  });
  const digest = createHash('sha256').update(JSON.stringify(content)).digest('base64url');
  if (digest === job.progressDigest) return true;
  await ctx.patientClient.chat.update({
    channel: job.messageChannel,
    ts: job.messageTs,
    text: content.text,
    blocks: content.blocks,
  });
  await ctx.store.bulkJobs.setProgressDigest(jobId, digest);
  return true;
}

/** Updates the message as soon as the gap allows (the end of a job, which must be shown). */
export async function updateProgressSoon(ctx: BulkContext, jobId: string): Promise<void> {
  for (let attempt = 0; attempt < 10; attempt += 1) {
    if (await updateProgress(ctx, jobId)) return;
    await sleep(PROGRESS_GAP_MS / 4);
  }
}

async function ratePerSecond(ctx: BulkContext, job: BulkJob, now: Date): Promise<number | undefined> {
  const since = Math.max(now.getTime() - RATE_WINDOW_MS, (job.startedAt ?? job.createdAt).getTime());
  const seconds = (now.getTime() - since) / 1000;
  if (seconds < 2) return undefined;
  const settled = await ctx.store.bulkJobs.settledSince(job.id, new Date(since));
  return settled > 0 ? settled / seconds : undefined;
}

/**
 * Keeps the messages of live jobs (running, paused, finishing) current: every TICK_MS each process offers
 * to update them; the gap on the job lets one update through per PROGRESS_GAP_MS. Returns a stop function.
 */
export function startProgressTicker(ctx: BulkContext): () => Promise<void> {
  let running: Promise<void> | undefined;
  let quietUntil = 0;
  const tick = () => {
    if (running || !ctx.readiness.isMigrated || ctx.readiness.isStopping) return;
    running = (async () => {
      const ids = await ctx.store.bulkJobs.ids(['running', 'paused', 'finishing']);
      for (const id of ids) await ctx.work.track(updateProgress(ctx, id));
    })()
      .catch((error: unknown) => {
        if (Date.now() < quietUntil) return;
        quietUntil = Date.now() + 60_000; // a database away for a while: one line a minute
        ctx.logger.warn({ err: error }, 'could not update bulk progress; will try again');
      })
      .finally(() => (running = undefined));
  };
  const timer = setInterval(tick, TICK_MS);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await running;
  };
}
