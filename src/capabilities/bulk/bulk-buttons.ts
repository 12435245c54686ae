import { writeCsvFile } from '../../platform/csv/write-csv-file.js';
import { uploadFile } from '../../platform/slack/web-api/upload-file.js';
import type { ButtonRequest } from '../../platform/slack/pipeline/listen.js';
import { refused, upstreamFailed } from '../../platform/slack/pipeline/request-ended.js';
import { slackErrorText } from '../../platform/blocks/slack-error-text.js';
import { updateModal } from '../../platform/blocks/update-modal.js';
import type { BulkJob, BulkJobs, JobTransition } from '../../platform/store/bulk-jobs/jobs.js';
import { jobsIn, mayControl, type BulkContext } from './bulk-context.js';
import { readPreview } from './bulk-preview.js';
import { sendResults } from './finish-job.js';
import { updateProgress, updateProgressSoon } from './progress.js';

export type Control = 'pause' | 'resume' | 'cancel';

const DONE: Record<Control, string> = { pause: 'paused', resume: 'resumed', cancel: 'cancelled' };

/** The answer to a job id that names no job of the request's workspace (deleted, or another workspace's). */
export const NO_SUCH_JOB = ':no_entry: This bulk job does not exist in this workspace (any more).';

/**
 * Pause, Resume or Cancel, on the progress message or on Home: only the requester or an approver, and only
 * a job of the workspace the click comes from; the change is a compare-and-set written with its audit entry.
 * The message shows it at its next update (at most 2 s).
 */
export function handleControl(ctx: BulkContext, control: Control) {
  return async (args: ButtonRequest): Promise<void> => {
    const userId = args.body.user.id;
    const teamId = args.teamId;
    const job = await jobsIn(ctx, teamId).get(args.action.value ?? '');
    if (!job) throw refused(NO_SUCH_JOB);
    const may = await mayControl(ctx, job, userId);
    if (!may.allowed) {
      const problem = may.problem ? ` (${may.problem})` : '';
      throw refused(
        `:no_entry: Only <@${job.requesterId}>, who started ${job.id}, or an approver can ${control} it${problem}.`,
      );
    }
    const result = await ctx.store.transaction(async (tx) => {
      const changed = await transitionFor(control, tx.bulkJobs.inTeam(teamId), job.id, userId);
      if (changed.won) {
        await tx.audit.record({
          actorId: userId,
          teamId: job.teamId,
          operation: `bulk.${control}`,
          inputs: { jobId: job.id },
          outcome: DONE[control],
        });
      }
      return changed;
    });
    if (!result.won) {
      throw refused(`:information_source: ${job.id} is ${stateText(result.job ?? job)}: nothing to ${control}.`);
    }
    ctx.logger.info({ jobId: job.id, by: userId }, `bulk job ${DONE[control]}`);
    ctx.home.refreshIn(job.teamId, [job.requesterId, userId]);
    await updateProgress(ctx, job).catch(() => undefined); // now if the 2 s allow; else the next tick
  };
}

function transitionFor(control: Control, jobs: BulkJobs, id: string, by: string): Promise<JobTransition> {
  if (control === 'pause') return jobs.pause(id, by);
  if (control === 'resume') return jobs.resume(id, by);
  return jobs.cancel(id, by);
}

function stateText(job: BulkJob): string {
  if (job.status === 'finishing' || job.status === 'done') return job.cancelledBy ? 'cancelled' : 'finished';
  return job.status === 'draft' ? 'not started' : job.status;
}

/**
 * "Send me all N errors as CSV" on the preview: the invalid rows with their problems, to the clicker's DM,
 * for the person who checked the file, in the workspace where they did.
 */
export function handleErrorsFile(ctx: BulkContext) {
  return async (args: ButtonRequest): Promise<void> => {
    const jobs = jobsIn(ctx, args.teamId);
    const job = await jobs.get(args.action.value ?? '');
    const userId = args.body.user.id;
    if (!job || job.requesterId !== userId) throw refused(':no_entry: This check no longer exists.');
    try {
      const file = await writeCsvFile(['row', 'error', ...job.columns], invalidRows(jobs, job));
      try {
        await ctx.work.track(
          uploadFile(args.client, {
            to: userId,
            filename: `${job.id}-errors.csv`,
            title: `Errors in ${job.sourceName}`,
            initialComment: `The rows of *${job.id}* that cannot be sent, with what is wrong in each.`,
            source: { path: file.path },
          }),
        );
      } finally {
        await file.remove();
      }
    } catch (error) {
      ctx.logger.warn({ err: error, jobId: job.id }, 'could not send the errors file');
      throw upstreamFailed(`:warning: The errors file could not be sent: ${slackErrorText(error)}`);
    }
    const view = args.body.view;
    if (view) {
      // For the preview as it was clicked only: if the user pressed Start meanwhile, the view has moved on
      // (Slack answers hash_conflict) and the started notice stays.
      const preview = await readPreview(jobs, job, { errorsSent: true });
      await updateModal(args.client, view.id, preview, ctx.logger, view.hash);
    }
  };
}

async function* invalidRows(jobs: BulkJobs, job: BulkJob): AsyncGenerator<string[]> {
  for (let after = 0; ;) {
    const page = await jobs.rows(job.id, { afterRow: after, statuses: ['invalid'], limit: 500 });
    for (const row of page) yield [String(row.rowNumber), row.error ?? '', ...row.cells];
    if (page.length < 500) return;
    after = page.at(-1)?.rowNumber ?? after;
  }
}

/** "Send the results file" on an ended job of the click's workspace whose file could not be sent. */
export function handleResendResults(ctx: BulkContext) {
  return async (args: ButtonRequest): Promise<void> => {
    const jobs = jobsIn(ctx, args.teamId);
    const job = await jobs.get(args.action.value ?? '');
    if (!job) throw refused(NO_SUCH_JOB);
    if (job.status !== 'done') throw refused(':no_entry: This bulk job has not ended.');
    const may = await mayControl(ctx, job, args.body.user.id);
    if (!may.allowed) throw refused(`:no_entry: Only <@${job.requesterId}> or an approver can do that.`);
    const sent = await ctx.work.track(sendResults(ctx, job, await jobs.counts(job.id)));
    if (!sent.fileId) throw upstreamFailed(`:warning: ${sent.note ?? 'The results file could not be sent.'}`);
    await jobs.setResultsFile(job.id, sent.fileId);
    ctx.home.refreshIn(job.teamId, [job.requesterId, args.body.user.id]); // no longer listed there as undelivered
    await ctx.work.track(updateProgressSoon(ctx, job));
  };
}
