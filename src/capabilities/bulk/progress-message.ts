import type { KnownBlock } from '@slack/types';
import type { MintServiceStatus } from '../../platform/mint/mint-api-client.js';
import { SYSTEM_ACTOR, type BulkJob, type RowCounts } from '../../platform/store/bulk-jobs/jobs.js';
import { actionsRow, context, message, section, type MessageContent } from '../../platform/blocks/blocks.js';
import { bold } from '../../platform/blocks/mrkdwn.js';
import { slackDate } from '../../platform/blocks/slack-date.js';
import { buttonOf } from '../../platform/slack/pipeline/declarations.js';
import { BULK } from './actions.js';
import { MAYBE_CREATED, controlButtons, things } from './bulk-views.js';

const BAR_CELLS = 20;

/** What a progress message shows, read at one moment. */
export interface Progress {
  job: BulkJob;
  counts: RowCounts;
  /** Rows settled per second lately; undefined before there is enough to say. */
  ratePerSecond: number | undefined;
  /**
   * The Mint service as this process sees it, for the job's workspace's account (undefined: none connected):
   * paused or failing means the job waits.
   */
  mint: Pick<MintServiceStatus, 'pausedUntil' | 'circuit'> | undefined;
  now: Date;
}

/**
 * The job's message in the requester's DM: done / failed / maybe created / left, a text progress bar, the rate and
 * the time left, and Pause / Resume / Cancel while it can still change; the totals once it has ended.
 */
export function progressMessage(p: Progress): MessageContent {
  const { job, counts } = p;
  const settled = counts.done + counts.failed + counts.unknown + counts.cancelled;
  const left = counts.pending + counts.sending;
  const what = things(job.kind, job.validRows);
  const title = `*Bulk job ${job.id}*: ${what} from ${bold(job.sourceName, 200)}`;
  const blocks: KnownBlock[] = [section(title)];
  if (job.status === 'done') {
    blocks.push(section(totalsText(job, counts)));
    blocks.push(context(resultsLine(job)));
    if (job.retriedAs) blocks.push(context(`Its failed rows were retried as *${job.retriedAs}*.`));
    const buttons = [
      ...(job.resultsFileId ? [] : [buttonOf(BULK.buttons.resendResults, { value: job.id })]),
      ...(!job.retriedAs && counts.failed + counts.unknown > 0
        ? [buttonOf(BULK.buttons.retry, { value: job.id })]
        : []),
    ];
    if (buttons.length > 0) blocks.push(actionsRow(`bulk_ended_${job.id}`, ...buttons));
    const text = `Bulk job ${job.id} finished: ${counts.done} created, ${counts.failed} failed, ${counts.unknown} ${MAYBE_CREATED}`;
    return message(text, blocks);
  }
  const percent = job.validRows > 0 ? Math.floor((settled / job.validRows) * 100) : 100;
  const filled = Math.round((percent / 100) * BAR_CELLS);
  blocks.push(
    section(
      `\`${'▓'.repeat(filled)}${'░'.repeat(BAR_CELLS - filled)}\` ${percent}%\n` +
        `*${counts.done.toLocaleString('en-US')} done* · *${counts.failed.toLocaleString('en-US')} failed* · ` +
        `*${counts.unknown.toLocaleString('en-US')} ${MAYBE_CREATED}* · *${left.toLocaleString('en-US')} left*` +
        (counts.cancelled > 0 ? ` · ${counts.cancelled.toLocaleString('en-US')} cancelled` : ''),
    ),
    context(statusLine(p, left)),
  );
  const controls = controlButtons(job, `bulk_controls_${job.id}`);
  if (controls) blocks.push(controls);
  return message(`Bulk job ${job.id}: ${settled} of ${job.validRows} settled (${percent}%)`, blocks);
}

function statusLine(p: Progress, left: number): string {
  const { job } = p;
  if (job.status === 'paused') {
    const who = job.changedBy && job.changedBy !== SYSTEM_ACTOR ? ` by <@${job.changedBy}>` : '';
    return `:double_vertical_bar: *Paused*${who}.${job.note ? ` ${job.note}` : ''} Nothing is sent until someone resumes it.`;
  }
  if (job.status === 'finishing') {
    return job.cancelledBy
      ? `:heavy_multiplication_x: ${cancelledText(job)}: rows not yet sent are not sent. Writing the results…`
      : ':page_facing_up: Every row is settled. Writing the results…';
  }
  if (p.mint?.pausedUntil && p.mint.pausedUntil > p.now) {
    return `:hourglass: *Waiting*: the Mint service asked the app to wait; sending again ${slackDate(p.mint.pausedUntil)}.`;
  }
  if (p.mint?.circuit === 'open') {
    return ':hourglass: *Waiting*: the Mint service is failing; the app tries it again every few seconds and goes on when it answers.';
  }
  const rate = p.ratePerSecond;
  const pace = rate && rate > 0 ? ` · ${perMinute(rate * 60)} a minute · about ${duration(left / rate)} left` : '';
  return `:arrows_counterclockwise: *Running* since ${slackDate(job.startedAt ?? job.createdAt)}${pace}`;
}

/** The totals of an ended job, for its message and the results file's comment. */
export function totalsText(job: BulkJob, counts: RowCounts): string {
  const ended = job.cancelledBy ? cancelledText(job) : '*Finished*';
  const parts = [
    `*${counts.done.toLocaleString('en-US')} created*`,
    `${counts.failed.toLocaleString('en-US')} failed`,
    `${counts.unknown.toLocaleString('en-US')} ${MAYBE_CREATED}`,
  ];
  if (counts.cancelled > 0) parts.push(`${counts.cancelled.toLocaleString('en-US')} not sent (cancelled)`);
  if (counts.invalid > 0) parts.push(`${counts.invalid.toLocaleString('en-US')} with errors in the file (not sent)`);
  return `${ended}: ${parts.join(' · ')}.${maybeCreatedWarning(counts.unknown)}`;
}

/** What to do about the rows that may have been created: one row is "it", more are "they". */
function maybeCreatedWarning(count: number): string {
  if (count === 0) return '';
  const heading = `\n:warning: *${count.toLocaleString('en-US')} ${MAYBE_CREATED}*: sent, but the outcome was not recorded.`;
  return count === 1
    ? `${heading} It may exist: check it before sending it again (the app never sends it again by itself).`
    : `${heading} They may exist: check them before sending them again (the app never sends them again by itself).`;
}

/** Who cancelled the job; the app itself stops jobs only with a note saying why. */
function cancelledText(job: BulkJob): string {
  if (job.cancelledBy === SYSTEM_ACTOR) return `*Stopped* by the app${job.note ? ` (${job.note})` : ''}`;
  return `*Cancelled* by <@${job.cancelledBy}>`;
}

function resultsLine(job: BulkJob): string {
  const when = job.finishedAt ? ` ${slackDate(job.finishedAt)}` : '';
  if (job.resultsFileId) return `Ended${when}. The results file (every row with its outcome) is in this conversation.`;
  return `Ended${when}. ${job.resultsNote ?? 'The results file could not be sent.'} The results are kept: press the button to send the file.`;
}

function perMinute(rate: number): string {
  return rate >= 10 ? Math.round(rate).toLocaleString('en-US') : rate.toFixed(1);
}

function duration(seconds: number): string {
  if (!Number.isFinite(seconds)) return 'an unknown time';
  if (seconds < 90) return `${Math.max(1, Math.round(seconds))} s`;
  if (seconds < 90 * 60) return `${Math.round(seconds / 60)} min`;
  return `${(seconds / 3600).toFixed(1)} h`;
}
