import type { Ended, FormRequest } from '../request-pipeline/listen.js';
import { refused } from '../request-pipeline/request-ended.js';
import { noticeModal } from '../slack-ui/notice-modal.js';
import { updateModal } from '../slack-ui/update-modal.js';
import { jobsIn, requestTeam, type BulkContext } from './bulk-context.js';
import { DRAFTS_KEPT } from './bulk-form.js';
import { startedView } from './bulk-views.js';
import { progressMessage } from './progress-message.js';

/**
 * Start pressed on the preview: the draft becomes a running job (a compare-and-set, by its requester only,
 * in the workspace where it was checked) together with its audit entry, its progress message is posted to
 * the requester's DM, and the workers are told. The modal says where to follow it.
 */
export function handleStart(ctx: BulkContext, nudge: () => void) {
  return async ({ ack, body, view, client }: FormRequest): Promise<Ended> => {
    const jobId = view.private_metadata;
    await ack({ response_action: 'update', view: noticeModal('Bulk create', ':hourglass_flowing_sand: Starting…') });
    const userId = body.user.id;
    const teamId = requestTeam(body);
    const started = await ctx.store.transaction(async (tx) => {
      const jobs = tx.bulkJobs.inTeam(teamId);
      const draft = await jobs.get(jobId);
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
      return jobs.start(jobId, userId, entry.id);
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
    await updateModal(client, view.id, startedView(job), ctx.logger);
    const jobs = jobsIn(ctx, teamId);
    const content = progressMessage({
      job,
      counts: await jobs.counts(jobId),
      ratePerSecond: undefined,
      mint: await ctx.mintAccounts.statusFor(teamId),
      now: new Date(),
    });
    try {
      // The request's own client: the bot of the workspace the Start came from.
      const posted = await client.chat.postMessage({ channel: userId, text: content.text, blocks: content.blocks });
      if (posted.channel && posted.ts) await jobs.setMessage(jobId, posted.channel, posted.ts);
    } catch (error) {
      // The job runs all the same; its results file still comes, and Home shows it.
      ctx.logger.warn({ err: error, jobId }, 'could not post the progress message');
    }
    ctx.home.refresh([userId]);
  };
}
