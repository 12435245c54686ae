import { writeCsvFile } from '../../platform/csv/write-csv-file.js';
import { uploadFile } from '../../platform/slack/web-api/upload-file.js';
import { slackErrorText } from '../../platform/blocks/slack-error-text.js';
import type {
  BulkJob,
  BulkJobs,
  BulkRow,
  BulkRowStatus,
  JobRef,
  RowCounts,
} from '../../platform/store/bulk-jobs/jobs.js';
import { jobsIn, type BulkContext } from './bulk-context.js';
import { updateProgressSoon } from './progress.js';
import { MAYBE_CREATED } from './bulk-views.js';
import { totalsText } from './progress-message.js';

/** A process writing a job's results that has been silent this long is taken over by another. */
export const FINISH_LEASE_MS = 5 * 60_000;
const PAGE_ROWS = 500;

const OUTCOMES: Record<BulkRowStatus, string> = {
  done: 'created',
  failed: 'failed',
  unknown: MAYBE_CREATED,
  cancelled: 'not sent (cancelled)',
  invalid: 'not sent (error in the file)',
  pending: 'not sent',
  sending: MAYBE_CREATED,
};

/**
 * Ends a finishing job, once, on whichever process claims it: the results file (every row as it came, its
 * outcome, the link's URL, the error) is uploaded to the requester's DM, the job's audit entry gets the
 * totals, the job is done, and its message shows the totals. If the upload fails the job still ends, with
 * the reason, and its message offers to send the file again: the rows stay in the database.
 */
export async function finishJob(ctx: BulkContext, ref: JobRef): Promise<void> {
  const jobs = jobsIn(ctx, ref.teamId);
  const jobId = ref.id;
  const claimed = await jobs.claimFinish(jobId, FINISH_LEASE_MS);
  if (!claimed?.finishClaimedAt) return;
  const counts = await jobs.counts(jobId);
  const sent = await sendResults(ctx, claimed, counts);
  if (claimed.auditId) {
    await ctx.store.audit
      .complete(claimed.auditId, auditOutcome(claimed, counts), auditDetail(counts, sent))
      .catch((error: unknown) => ctx.logger.error({ err: error, jobId }, 'could not complete the audit entry'));
  }
  const done = await jobs.complete(jobId, claimed, sent);
  if (!done.won) return; // another process took over meanwhile (this one was too slow): it shows the end
  ctx.logger.info({ jobId, ...counts, resultsFile: sent.fileId }, 'bulk job finished');
  ctx.home.refreshIn(claimed.teamId, [claimed.requesterId]);
  await updateProgressSoon(ctx, ref).catch((error: unknown) => {
    // The progress ticker looks after ended jobs for a while: it shows the end at its next turn.
    ctx.logger.warn({ err: error, jobId }, 'could not show the end of a bulk job yet; will try again');
  });
}

/**
 * Uploads the results file to the requester's DM, with the bot token of the job's workspace; says why not
 * when it cannot (a workspace the app was removed from among the reasons: the results stay in the database).
 */
export async function sendResults(
  ctx: BulkContext,
  job: BulkJob,
  counts: RowCounts,
): Promise<{ fileId?: string; note?: string }> {
  const slack = await ctx.workspaces.slack(job.teamId).catch((error: unknown) => {
    if (ctx.gone.skip(job.teamId, error, 'results files')) return undefined;
    throw error;
  });
  if (!slack) return { note: 'The results file could not be sent: the app is not installed in this workspace.' };
  try {
    const file = await writeCsvFile(resultsHeader(job), resultRows(jobsIn(ctx, job.teamId), job));
    try {
      const uploaded = await uploadFile(slack, {
        to: job.messageChannel ?? job.requesterId, // the DM of the progress message, when it was posted
        filename: `${job.id}-results.csv`,
        title: `${job.id} results (${job.sourceName})`,
        initialComment: `Results of bulk job *${job.id}*. ${totalsText(job, counts)}`,
        source: { path: file.path },
      });
      return { fileId: uploaded.fileId };
    } finally {
      await file.remove();
    }
  } catch (error) {
    ctx.logger.warn({ err: error, jobId: job.id }, 'could not send the results file');
    return { note: `The results file could not be sent: ${slackErrorText(error)}` };
  }
}

function resultsHeader(job: BulkJob): string[] {
  return ['row', ...job.columns, 'outcome', ...(job.kind === 'links' ? ['link_url'] : []), 'error'];
}

async function* resultRows(jobs: BulkJobs, job: BulkJob): AsyncGenerator<string[]> {
  for (let after = 0; ;) {
    const page = await jobs.rows(job.id, { afterRow: after, limit: PAGE_ROWS });
    for (const row of page) yield resultRow(job, row);
    if (page.length < PAGE_ROWS) return;
    after = page.at(-1)?.rowNumber ?? after;
  }
}

function resultRow(job: BulkJob, row: BulkRow): string[] {
  const cells = job.columns.map((_, i) => row.cells[i] ?? '');
  const error =
    row.status === 'unknown' || row.status === 'sending'
      ? `${asSentence(row.error ?? 'Sent, but the outcome was not recorded')} It may have been created: check before sending it again.`
      : (row.error ?? '');
  return [
    String(row.rowNumber),
    ...cells,
    OUTCOMES[row.status],
    ...(job.kind === 'links' ? [row.resultUrl ?? ''] : []),
    error,
  ];
}

/**
 * How the job's audit entry (and Home's activity line) says it ended: a job with rows that failed or may have
 * been created did not simply succeed. Rows with errors in the file were left out knowingly at Start.
 */
const DONE_WITH_FAILURES = 'done with failures';

function auditOutcome(job: BulkJob, counts: RowCounts): string {
  if (job.cancelledBy) return 'cancelled';
  return counts.failed + counts.unknown + counts.sending > 0 ? DONE_WITH_FAILURES : 'succeeded';
}

/** `text` ending with a full stop (the service's messages come with or without one). */
function asSentence(text: string): string {
  const trimmed = text.trim();
  return /[.!?]$/.test(trimmed) ? trimmed : `${trimmed}.`;
}

function auditDetail(counts: RowCounts, sent: { fileId?: string; note?: string }): string {
  const totals = `${counts.done} created, ${counts.failed} failed, ${counts.unknown} ${MAYBE_CREATED}, ${counts.cancelled} cancelled, ${counts.invalid} invalid`;
  return `${totals}; ${sent.fileId ? `results file ${sent.fileId}` : (sent.note ?? 'no results file')}`;
}
