import type { Ended, FormRequest } from '../request-pipeline/listen.js';
import { refused } from '../request-pipeline/request-ended.js';
import { noticeModal } from '../slack-ui/notice-modal.js';
import { updateModal } from '../slack-ui/update-modal.js';
import type { BulkContext } from './bulk-context.js';
import { DRAFTS_KEPT } from './bulk-form.js';
import { startedView } from './bulk-views.js';
import { progressMessage } from './progress-message.js';

/**
 * Start pressed on the preview: the draft becomes a running job (a compare-and-set, by its requester only)
 * together with its audit entry, its progress message is posted to the requester's DM, and the workers
 * are told. The modal says where to follow it.
 */
export function handleStart(ctx: BulkContext, nudge: () => void) {
  return async ({ ack, body, view }: FormRequest): Promise<Ended> => {
    const jobId = view.private_metadata;
    await ack({ response_action: 'update', view: noticeModal('Bulk create', ':hourglass_flowing_sand: Starting…') });
    const userId = body.user.id;
    const started = await ctx.store.transaction(async (tx) => {
      const draft = await tx.bulkJobs.get(jobId);
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
        },
      });
      return tx.bulkJobs.start(jobId, userId, entry.id);
    });
    if (!started.won) {
      const why = !started.job
        ? `This check no longer exists: unstarted checks are kept for a day, and only your ${DRAFTS_KEPT} newest. Submit the file again.`
        : started.job.requesterId !== userId
          ? 'Only the person who checked the file can start it.'
          : `${started.job.id} has already been started: its progress is in your DM with the app.`;
      throw refused(`:information_source: ${why}`);
    }
    const job = started.job;
    ctx.logger.info({ jobId, kind: job.kind, rows: job.validRows }, 'bulk job started');
    nudge();
    await updateModal(ctx.client, view.id, startedView(job), ctx.logger);
    const content = progressMessage({
      job,
      counts: await ctx.store.bulkJobs.counts(jobId),
      ratePerSecond: undefined,
      mint: ctx.mintApi.status,
      now: new Date(),
    });
    try {
      const posted = await ctx.client.chat.postMessage({ channel: userId, text: content.text, blocks: content.blocks });
      if (posted.channel && posted.ts) await ctx.store.bulkJobs.setMessage(jobId, posted.channel, posted.ts);
    } catch (error) {
      // The job runs all the same; its results file still comes, and Home shows it.
      ctx.logger.warn({ err: error, jobId }, 'could not post the progress message');
    }
    ctx.home.refresh([userId]);
  };
}
