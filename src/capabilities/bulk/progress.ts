import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { MessageContent } from '../../platform/blocks/blocks.js';
import type { BulkJob, BulkJobs, JobRef } from '../../platform/store/bulk-jobs/jobs.js';
import { jobsIn, type BulkContext } from './bulk-context.js';
import { progressMessage } from './progress-message.js';
import type { Job } from '../../platform/ops/lifecycle/scheduler.js';

/** The rate is read over this much of the recent past. */
const RATE_WINDOW_MS = 60_000;
/**
 * Ended jobs are still looked after this long: a last update that failed (or never came, the process having
 * stopped) or that a late update from another process undid is made good.
 */
const ENDED_WATCH_MS = 15 * 60_000;
/**
 * Live jobs looked after per tick, oldest first, of all workspaces together (each costs a few reads every
 * tick, on every process): as many as before there were workspaces.
 */
const LIVE_WATCHED = 100;

/**
 * Brings a job's progress message up to date, if no process did so in the last `pace.progressGapMs` (a
 * compare-and-set on the job) and if what it shows changed. Returns false when the gap had not passed.
 * What the message shows is recorded as a digest once Slack took the update; an update that failed, or that
 * overlapped another, clears it, so that the next turn sends the message again. The message is updated with
 * the bot token of the job's workspace; a workspace without an installation is skipped (logged once).
 */
export async function updateProgress(ctx: BulkContext, ref: JobRef, now = new Date()): Promise<boolean> {
  const jobs = jobsIn(ctx, ref.teamId);
  const before = await jobs.get(ref.id);
  if (!before?.messageChannel || !before.messageTs) return true; // not posted (yet): nothing to update
  // A job that is not running shows nothing that changes with time: when its message shows what it would show
  // now (a paused job, an ended one), there is nothing to do, and no turn to take from the other processes.
  if (before.status !== 'running' && (await render(ctx, jobs, before, now)).digest === before.progressDigest)
    return true;
  const slack = await ctx.workspaces.slack(ref.teamId).catch((error: unknown) => {
    if (ctx.gone.skip(ref.teamId, error, 'progress messages')) return undefined;
    throw error;
  });
  if (!slack) return true;
  ctx.gone.back(ref.teamId);
  if (!(await jobs.claimProgress(ref.id, ctx.pace.progressGapMs))) return false;
  const job = await jobs.get(ref.id);
  if (!job?.messageChannel || !job.messageTs) return true;
  const { content, digest } = await render(ctx, jobs, job, now);
  if (digest === job.progressDigest) return true;
  const jobId = job.id;
  try {
    await slack.chat.update({
      channel: job.messageChannel,
      ts: job.messageTs,
      text: content.text,
      blocks: content.blocks,
    });
  } catch (error) {
    // Slack may or may not have applied it: the message is no longer known to show anything.
    await jobs.recordProgress(jobId, undefined, job.progressDigest).catch(() => undefined);
    throw error;
  }
  await jobs.recordProgress(jobId, digest, job.progressDigest);
  // A job that stopped (paused, ended) still changes while its rows in flight settle: the requester's Home
  // shows the same counts as this message, without their opening it again. A running job's Home entry moves
  // at its start, pause and end only, not with each row.
  if (job.status !== 'running') ctx.home.refreshIn(job.teamId, [job.requesterId]);
  return true;
}

async function render(
  ctx: BulkContext,
  jobs: BulkJobs,
  job: BulkJob,
  now: Date,
): Promise<{ content: MessageContent; digest: string }> {
  const content = progressMessage({
    job,
    counts: await jobs.counts(job.id),
    ratePerSecond: job.status === 'running' ? await ratePerSecond(jobs, job, now) : undefined,
    mint: await ctx.mintAccounts.statusFor(job.teamId),
    now,
  });
  return { content, digest: createHash('sha256').update(JSON.stringify(content)).digest('base64url') };
}

/** Updates the message as soon as the gap allows (the end of a job, which must be shown). */
export async function updateProgressSoon(ctx: BulkContext, ref: JobRef): Promise<void> {
  for (let attempt = 0; attempt < 10; attempt += 1) {
    if (await updateProgress(ctx, ref)) return;
    await sleep(ctx.pace.progressGapMs / 4);
  }
}

async function ratePerSecond(jobs: BulkJobs, job: BulkJob, now: Date): Promise<number | undefined> {
  const since = Math.max(now.getTime() - RATE_WINDOW_MS, (job.startedAt ?? job.createdAt).getTime());
  const seconds = (now.getTime() - since) / 1000;
  if (seconds < 2) return undefined;
  const settled = await jobs.settledSince(job.id, new Date(since));
  return settled > 0 ? settled / seconds : undefined;
}

/**
 * Keeps the messages of live jobs (running, paused, finishing) current, and those of jobs that ended in the
 * last ENDED_WATCH_MS final: every `pace.progressTickMs` each process offers to update them (ended ones every
 * `pace.progressGapMs`); the gap on the job lets one update through per gap. A job of the scheduler.
 *
 * It reads the database only while a message may still change by itself: a job at work (running, finishing),
 * a paused one whose message is not up to date yet or whose rows in flight are still settling, an ended one
 * still watched. Otherwise (nothing live, or only paused jobs, settled and shown as they are) it reads nothing
 * until the bulk worker is woken (`wakes` moves: a job was started, resumed or cancelled somewhere, announced
 * on the change feed); a pause comes from a job at work, which this process is watching already.
 */
export function progressTickerJob(ctx: BulkContext, wakes: () => number): Job {
  let quietAt: number | undefined;
  let endedCheckedAt = 0;
  let quietUntil = 0;
  const warn = (error: unknown) => {
    if (Date.now() < quietUntil) return;
    quietUntil = Date.now() + 60_000; // a database (or Slack) away for a while: one line a minute
    ctx.logger.warn({ err: error }, 'could not update bulk progress; will try again');
  };
  /** Brings one message up to date; returns whether it is (false: the gap had not passed, or it failed). */
  const update = (ref: JobRef) =>
    ctx.work.track(updateProgress(ctx, ref)).catch((error: unknown) => {
      warn(error);
      return false;
    });
  const pass = async () => {
    if (!ctx.readiness.isMigrated || ctx.readiness.isStopping) return;
    const seen = wakes();
    if (quietAt === seen) return; // nothing that changes by itself, and no job given work since
    const woken = quietAt !== undefined;
    quietAt = undefined;
    // Every workspace's jobs: each is then read and updated within its own workspace.
    const atWork = await ctx.store.bulkJobs.ids(['running', 'finishing'], LIVE_WATCHED);
    const paused = await ctx.store.bulkJobs.ids(['paused'], LIVE_WATCHED);
    const lookAtEnded = woken || Date.now() - endedCheckedAt >= ctx.pace.progressGapMs;
    const ended: JobRef[] = [];
    if (lookAtEnded) {
      endedCheckedAt = Date.now();
      // This process's clock against the one that ended the job: seconds of skew on a 15-minute watch do not
      // matter (the gap between updates, which they would, is timed by the database).
      ended.push(...(await ctx.store.bulkJobs.endedSince(new Date(Date.now() - ENDED_WATCH_MS))));
    }
    // One message Slack refuses to update does not hold back the others.
    for (const ref of atWork) await update(ref);
    let pausedSettled = true;
    for (const ref of paused) {
      const shown = await update(ref);
      const counts = await jobsIn(ctx, ref.teamId).counts(ref.id);
      if (!shown || counts.sending > 0) pausedSettled = false;
    }
    for (const ref of ended) await update(ref);
    if (atWork.length === 0 && pausedSettled && lookAtEnded && ended.length === 0) quietAt = seen;
  };
  return {
    name: 'bulk progress messages',
    everyMs: ctx.pace.progressTickMs,
    atStart: false,
    run: pass,
    failed: warn,
  };
}
