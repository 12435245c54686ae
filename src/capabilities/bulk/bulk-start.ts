import type { Ended, FormRequest } from '../../platform/slack/pipeline/listen.js';
import { refused } from '../../platform/slack/pipeline/request-ended.js';
import { noticeModal } from '../../platform/blocks/notice-modal.js';
import { updateModal } from '../../platform/blocks/update-modal.js';
import { checkedValues } from '../../platform/blocks/view-state.js';
import type { BulkJob, BulkJobs } from '../../platform/store/bulk-jobs/jobs.js';
import { jobsIn, type BulkContext } from './bulk-context.js';
import { DRAFTS_KEPT } from './bulk-form.js';
import { alreadyRetriedText } from './bulk-retry.js';
import { HELD_ROWS_BLOCK, HELD_ROWS_CHOICE, startedView } from './bulk-views.js';
import { progressMessage } from './progress-message.js';
import { updateProgressSoon } from './progress.js';

/** The inline answer to Start on a retry whose only rows are held back and not chosen. */
export function nothingChosenText(held: number): string {
  return held === 1
    ? 'Tick this box to retry this row, or close: no other row can be sent.'
    : `Tick this box to retry these ${held.toLocaleString('en-US')} rows, or close: no other row can be sent.`;
}

/**
 * Start pressed on the preview: the draft becomes a running job (a compare-and-set, by its requester only,
 * in the workspace where it was checked) together with its audit entry, its progress message is posted to
 * the requester's DM, and the workers are told (the store announces the job on the change feed). The modal says where to follow it. A retry's held-back rows
 * (outcome unknown before) go with it only when the person ticked them.
 */
export function handleStart(ctx: BulkContext) {
  return async ({ ack, body, view, client, teamId }: FormRequest): Promise<Ended> => {
    const jobId = view.private_metadata;
    const userId = body.user.id;
    const jobs = jobsIn(ctx, teamId);
    const offersHeld = view.blocks.some((block) => block.block_id === HELD_ROWS_BLOCK);
    const includeHeld = checkedValues(view.state.values, HELD_ROWS_BLOCK).includes(HELD_ROWS_CHOICE);
    const draft = offersHeld && !includeHeld ? await jobs.get(jobId) : undefined;
    if (draft?.validRows === 0)
      return ack({ response_action: 'errors', errors: { [HELD_ROWS_BLOCK]: nothingChosenText(draft.heldRows) } });
    await ack({ response_action: 'update', view: noticeModal('Bulk create', ':hourglass_flowing_sand: Starting…') });
    const started = await ctx.store.transaction(async (tx) => {
      const inTx = tx.bulkJobs.inTeam(teamId);
      const draft = await inTx.get(jobId);
      if (!draft || draft.status !== 'draft' || draft.requesterId !== userId)
        return { won: false as const, job: draft };
      const entry = await tx.audit.start({
        actorId: userId,
        teamId: draft.teamId,
        operation: 'bulk.run',
        inputs: {
          jobId,
          kind: draft.kind,
          source: draft.sourceName,
          rows: draft.totalRows,
          valid: draft.validRows,
          defaults: draft.defaults,
          ...(draft.retryOf
            ? { retryOf: draft.retryOf, maybeCreated: draft.heldRows, maybeCreatedChosen: includeHeld }
            : {}),
        },
        history: {
          kind: 'bulk',
          job: {
            jobId,
            of: draft.kind,
            source: draft.sourceName,
            rows: draft.totalRows,
            valid: draft.validRows,
            retryOf: draft.retryOf,
            nftId: typeof draft.defaults.nftId === 'string' ? draft.defaults.nftId : undefined,
          },
        },
      });
      return inTx.start(jobId, userId, entry.id, { includeHeld });
    });
    if (!started.won) throw refused(await notStartedText(jobs, started.job, userId));
    const job = started.job;
    ctx.logger.info({ jobId, kind: job.kind, rows: job.validRows, retryOf: job.retryOf }, 'bulk job started');
    await updateModal(client, view.id, startedView(job), ctx.logger);
    const retried = job.retryOf ? await jobs.get(job.retryOf) : undefined;
    const content = progressMessage({
      job,
      counts: await jobs.counts(jobId),
      ratePerSecond: undefined,
      mint: await ctx.mintAccounts.statusFor(teamId),
      now: new Date(),
    });
    try {
      // The request's own client: the bot of the workspace the Start came from. A retry's message goes where
      // the job it retries was followed.
      const channel = retried?.messageChannel ?? userId;
      const posted = await client.chat.postMessage({ channel, text: content.text, blocks: content.blocks });
      if (posted.channel && posted.ts) await jobs.setMessage(jobId, posted.channel, posted.ts);
    } catch (error) {
      // The job runs all the same; its results file still comes, and Home shows it.
      ctx.logger.warn({ err: error, jobId }, 'could not post the progress message');
    }
    ctx.home.refreshIn(teamId, [userId]);
    if (retried) {
      // The retried job's message no longer offers the retry: it says which job took its rows.
      await ctx.work.track(updateProgressSoon(ctx, retried)).catch((error: unknown) => {
        ctx.logger.warn({ err: error, jobId: retried.id }, 'could not show the retry on the retried job yet');
      });
    }
  };
}

async function notStartedText(jobs: BulkJobs, job: BulkJob | undefined, userId: string): Promise<string> {
  if (!job)
    return `:information_source: This check no longer exists: unstarted checks are kept for a day, and only your ${DRAFTS_KEPT} newest. Submit the file again.`;
  if (job.requesterId !== userId) return ':information_source: Only the person who checked the file can start it.';
  if (job.status === 'draft' && job.retryOf) {
    // Still a draft: the job it retries was retried by another check of its failed rows meanwhile.
    const retried = await jobs.get(job.retryOf);
    return alreadyRetriedText({ id: job.retryOf, retriedAs: retried?.retriedAs });
  }
  return `:information_source: ${job.id} has already been started: its progress is in your DM with the app.`;
}
