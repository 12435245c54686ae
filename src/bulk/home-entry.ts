import type { KnownBlock } from '@slack/types';
import type { HomeEntry } from '../deps.js';
import { context, divider, section } from '../slack-ui/blocks.js';
import { bold } from '../slack-ui/mrkdwn.js';
import type { BulkJob, BulkJobStatus } from '../store/bulk-jobs.js';
import type { BulkContext } from './bulk-context.js';
import { controlButtons, things } from './bulk-views.js';

export const BULK_HOME_ACTION = 'home_bulk_create';
const LIVE: BulkJobStatus[] = ['running', 'paused', 'finishing'];
const SHOWN = 5;

/**
 * Bulk jobs on App Home: a requester's own live jobs (with Pause/Resume/Cancel), and, for approvers, the
 * live jobs of everyone else (they may pause or cancel them too).
 */
export function bulkHomeEntry(ctx: BulkContext): HomeEntry {
  return {
    order: 10,
    flow: { actionId: BULK_HOME_ACTION, label: 'Bulk create' },
    blocks: async (userId) => {
      const own = await ctx.store.bulkJobs.list({ statuses: LIVE, requesterId: userId, limit: SHOWN });
      const approver = (await ctx.approvers.check(userId)).approver;
      const others = approver
        ? await ctx.store.bulkJobs.list({ statuses: LIVE, notRequesterId: userId, limit: SHOWN })
        : [];
      const blocks: KnownBlock[] = [];
      if (own.length > 0) blocks.push(section('*Your bulk jobs*'), ...(await jobBlocks(ctx, own, false)));
      if (others.length > 0)
        blocks.push(
          section('*Bulk jobs of others* (you may pause or cancel them)'),
          ...(await jobBlocks(ctx, others, true)),
        );
      if (blocks.length > 0) blocks.push(divider());
      return blocks;
    },
  };
}

async function jobBlocks(ctx: BulkContext, jobs: BulkJob[], withRequester: boolean): Promise<KnownBlock[]> {
  const blocks: KnownBlock[] = [];
  for (const job of jobs) {
    const counts = await ctx.store.bulkJobs.counts(job.id);
    const settled = counts.done + counts.failed + counts.unknown + counts.cancelled;
    const who = withRequester ? ` · <@${job.requesterId}>` : '';
    blocks.push(
      section(
        `*${job.id}*${who} · ${settled.toLocaleString('en-US')} of ${things(job.kind, job.validRows)} settled · ${stateWord(job)}\n` +
          `from ${bold(job.sourceName, 200)}: ${counts.done} done, ${counts.failed} failed, ${counts.unknown} unknown`,
      ),
    );
    const controls = controlButtons(job, `home_bulk_${job.id}`);
    if (controls) blocks.push(controls);
  }
  if (jobs.length >= SHOWN) blocks.push(context(`The newest ${SHOWN} are shown.`));
  return blocks;
}

function stateWord(job: BulkJob): string {
  if (job.status === 'paused') return ':double_vertical_bar: paused';
  if (job.status === 'finishing') return job.cancelledBy ? 'cancelled, writing the results' : 'writing the results';
  return ':arrows_counterclockwise: running';
}
