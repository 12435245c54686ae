import { setImmediate as nextTurn } from 'node:timers/promises';
import { z } from 'zod';
import type { LinkDefaults } from '../../platform/mint/row-requests.js';
import { LINK_TYPES, WALLET_OPTIONS } from '../../platform/mint/schemas.js';
import type { ButtonRequest } from '../../platform/slack/pipeline/listen.js';
import { refused } from '../../platform/slack/pipeline/request-ended.js';
import { openModalToUpdate } from '../../platform/blocks/open-modal.js';
import { updateModal } from '../../platform/blocks/update-modal.js';
import type { BulkJob, BulkJobs, NewBulkRow } from '../../platform/store/bulk-jobs/jobs.js';
import { NO_SUCH_JOB } from './bulk-buttons.js';
import { jobsIn, type BulkContext } from './bulk-context.js';
import { DRAFTS_KEPT } from './bulk-form.js';
import { readPreview } from './bulk-preview.js';
import { checkingView } from './bulk-views.js';
import { rowChecker } from './job-table.js';

/** Said when every check slot (BULK_CHECK_SLOTS) is taken: a retry is checked as a file is. */
const RETRY_BUSY_TEXT =
  ':hourglass: The app is checking other files right now. Nothing is lost: press *Retry failed rows* again in a minute.';

/** Rows read from the job being retried at a time. */
const PAGE_ROWS = 500;

/**
 * "Retry failed rows" on the message of an ended job: a new job of the rows that failed, checked again as a
 * file is (the job's own columns and defaults, today's date) and shown in the same preview, with Start, for
 * the job's requester only, in the workspace where it ran. Rows whose outcome was unknown (the Mint service
 * may have created them) are held back in the preview, and sent only if the person ticks them at Start.
 * A requester has one unstarted retry of a job (clicking again shows it again), and a job is retried once
 * (Start marks it: see BulkJobs.start), so no row is sent twice by retries.
 */
export function handleRetry(ctx: BulkContext) {
  return async ({ body, action, client, teamId }: ButtonRequest): Promise<void> => {
    const userId = body.user.id;
    const jobs = jobsIn(ctx, teamId);
    const job = await jobs.get(action.value ?? '');
    if (!job) throw refused(NO_SUCH_JOB);
    if (job.requesterId !== userId)
      throw refused(
        `:no_entry: Only <@${job.requesterId}>, who started ${job.id}, can retry its failed rows: the new job would be theirs.`,
      );
    if (job.status !== 'done') throw refused(`:information_source: ${job.id} has not ended: nothing to retry yet.`);
    if (job.retriedAs) throw refused(alreadyRetriedText(job));
    const counts = await jobs.counts(job.id);
    if (counts.failed + counts.unknown === 0)
      throw refused(`:information_source: No row of ${job.id} failed: nothing to retry.`);
    if (ctx.checkSlots.executionSlots === 0) throw refused(RETRY_BUSY_TEXT);
    await ctx.checkSlots.execute(async () => {
      const viewId = await openModalToUpdate(client, body.trigger_id, checkingView(`the failed rows of ${job.id}`));
      const draft = await jobs.createDraft(
        {
          teamId: job.teamId,
          requesterId: userId,
          kind: job.kind,
          sourceName: `failed rows of ${job.id}`,
          columns: job.columns,
          defaults: job.defaults,
          retryOf: job.id,
          rows: rowsToRetry(jobs, job, new Date()),
        },
        new Date(),
        { keepNewest: DRAFTS_KEPT, scrub: ctx.scrub },
      );
      ctx.logger.info({ jobId: job.id, retry: draft.job.id }, 'bulk retry checked');
      if (viewId)
        await updateModal(client, viewId, await readPreview(jobs, draft.job, { dropped: draft.dropped }), ctx.logger);
    });
  };
}

/** What Start and the retry button say when the job's failed rows were retried already. */
export function alreadyRetriedText(job: Pick<BulkJob, 'id' | 'retriedAs'>): string {
  return `:information_source: The failed rows of ${job.id} were already retried as ${job.retriedAs ?? 'another job'}: its progress is in your DM with the app.`;
}

/**
 * The failed rows of `job`, checked again; its rows of unknown outcome come held back (see NewBulkRow.held).
 * Checked again because what was valid then may not be now (a claim that has ended since).
 */
async function* rowsToRetry(jobs: BulkJobs, job: BulkJob, now: Date): AsyncGenerator<NewBulkRow> {
  const checker = rowChecker(job.columns, job.kind, storedLinkDefaults(job.defaults), now);
  for (let after = 0; ;) {
    const page = await jobs.rows(job.id, { afterRow: after, statuses: ['failed', 'unknown'], limit: PAGE_ROWS });
    for (const row of page) {
      const record = { rowNumber: row.rowNumber, cells: row.cells };
      const checked: NewBulkRow = checker.ok ? checker.check(record) : { ...record, error: checker.problem };
      if (row.status === 'unknown') checked.held = true;
      yield checked;
    }
    if (page.length < PAGE_ROWS) return;
    after = page.at(-1)?.rowNumber ?? after;
    await nextTurn(); // thousands of rows must not hold Slack's acks
  }
}

/** The defaults a job was checked with, as stored with it (see linkDefaults in bulk-submission.ts). */
const storedDefaultsSchema = z.object({
  nftId: z.string().optional(),
  walletOptions: z.enum(WALLET_OPTIONS).optional(),
  type: z.enum(LINK_TYPES).optional(),
  isActive: z.boolean().optional(),
  startDate: z.string().optional(),
  endDate: z.string().optional(),
});

function storedLinkDefaults(defaults: Record<string, unknown>): LinkDefaults {
  const parsed = storedDefaultsSchema.safeParse(defaults);
  return parsed.success ? parsed.data : {}; // not readable: each row then says what it lacks, in the preview
}
