import type { KnownBlock } from '@slack/types';
import { BULK } from './actions.js';
import type { HomeEntry } from '../../deps.js';
import { actionsRow, context, divider, section } from '../../platform/blocks/blocks.js';
import { bold, escapeAndCut } from '../../platform/blocks/mrkdwn.js';
import type { BulkJob, BulkJobs, BulkJobStatus } from '../../platform/store/bulk-jobs/jobs.js';
import type { BulkContext } from './bulk-context.js';
import { buttonOf } from '../../platform/slack/pipeline/declarations.js';
import { MAYBE_CREATED, controlButtons, things } from './bulk-views.js';

const LIVE: BulkJobStatus[] = ['running', 'paused', 'finishing'];
const SHOWN = 5;

/**
 * Bulk jobs on App Home, of the Home's workspace only: a requester's own live jobs (with Pause/Resume/Cancel)
 * and ended ones whose results file could not be sent (with the button that sends it), and, for that
 * workspace's approvers, the same of everyone else there (they may pause, cancel or send the file too).
 */
export function bulkHomeEntry(ctx: BulkContext): HomeEntry {
  return {
    order: 10,
    flow: BULK.buttons.createFromHome,
    blocks: async (userId, teamId) => {
      if (teamId === undefined) return []; // a Home of no known workspace shows no workspace's jobs
      const jobs = ctx.store.bulkJobs.inTeam(teamId);
      const shown = { statuses: LIVE, undelivered: true, limit: SHOWN };
      const own = await jobs.list({ ...shown, requesterId: userId });
      const approver = (await ctx.approvers.check(userId, { teamId })).approver;
      const others = approver ? await jobs.list({ ...shown, notRequesterId: userId }) : [];
      const blocks: KnownBlock[] = [];
      if (own.length > 0) blocks.push(section('*Your bulk jobs*'), ...(await jobBlocks(jobs, own, false)));
      if (others.length > 0)
        blocks.push(
          section('*Bulk jobs of others* (you may pause or cancel them)'),
          ...(await jobBlocks(jobs, others, true)),
        );
      if (blocks.length > 0) blocks.push(divider());
      return blocks;
    },
  };
}

async function jobBlocks(store: BulkJobs, jobs: BulkJob[], withRequester: boolean): Promise<KnownBlock[]> {
  const blocks: KnownBlock[] = [];
  for (const job of jobs) {
    const counts = await store.counts(job.id);
    const settled = counts.done + counts.failed + counts.unknown + counts.cancelled;
    const who = withRequester ? ` · <@${job.requesterId}>` : '';
    blocks.push(
      section(
        `*${job.id}*${who} · ${settled.toLocaleString('en-US')} of ${things(job.kind, job.validRows)} settled · ${stateWord(job)}\n` +
          `from ${bold(job.sourceName, 200)}: ${counts.done} done, ${counts.failed} failed, ${counts.unknown} ${MAYBE_CREATED}`,
      ),
    );
    const controls = controlButtons(job, `home_bulk_${job.id}`);
    if (controls) blocks.push(controls);
    if (job.status === 'done' && !job.resultsFileId) {
      blocks.push(
        context(escapeAndCut(job.resultsNote ?? 'The results file could not be sent.', 500)),
        actionsRow(`home_bulk_resend_${job.id}`, buttonOf(BULK.buttons.resendResults, { value: job.id })),
      );
    }
  }
  if (jobs.length >= SHOWN) blocks.push(context(`The newest ${SHOWN} are shown.`));
  return blocks;
}

function stateWord(job: BulkJob): string {
  if (job.status === 'done') return `:warning: ${job.cancelledBy ? 'cancelled' : 'ended'}, results file not sent`;
  if (job.status === 'paused') return ':double_vertical_bar: paused';
  if (job.status === 'finishing') return job.cancelledBy ? 'cancelled, writing the results' : 'writing the results';
  return ':arrows_counterclockwise: running';
}
