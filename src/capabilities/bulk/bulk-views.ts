import type { ActionsBlock, KnownBlock, ModalView } from '@slack/types';
import { MAYBE_CREATED } from '../../domain/bulk-words.js';
import { buttonOf } from '../../platform/slack/pipeline/declarations.js';
import { BULK } from './actions.js';
import type { BulkJob, BulkKind, BulkRow } from '../../platform/store/bulk-jobs/jobs.js';
import { DRAFTS_KEPT } from './bulk-form.js';
import { actionsRow, context, section } from '../../platform/blocks/blocks.js';
import { checkboxInput } from '../../platform/blocks/inputs.js';
import { enumLabel } from '../../platform/blocks/choices.js';
import { modal } from '../../platform/blocks/modal.js';
import { bold, escapeAndCut, inlineCode } from '../../platform/blocks/mrkdwn.js';
import { noticeModal } from '../../platform/blocks/notice-modal.js';
import { slackDate } from '../../platform/blocks/slack-date.js';

/** The checkbox on a retry's preview that chooses the rows held back (their outcome was unknown). */
export const HELD_ROWS_BLOCK = 'bulk_retry_held';
export const HELD_ROWS_CHOICE = 'include';

/** Held-back rows listed in a retry's preview. */
export const HELD_SHOWN = 10;

/** A row of the job being retried whose outcome was unknown, as a retry's preview lists it. */
export type HeldRow = Pick<BulkRow, 'rowNumber' | 'cells' | 'error'>;

/** Failed rows of the job being retried listed in a retry's preview, with the error each got. */
export const FAILED_SHOWN = 10;

/** What a retry's preview shows of the job it retries: its failed rows (the first ones) and how many of each. */
export interface RetriedRows {
  failed: readonly HeldRow[];
  failedCount: number;
  /** Rows with errors in that job's file: never sent, so not retried. */
  invalidCount: number;
}

/**
 * The service's answers that say the row itself is wrong: sent again as it was, it fails again. The client
 * words them "The Mint service answered <status>…" (mint-api-client.ts); no status is stored with a row.
 */
const REPEATS = /^The Mint service answered (400|404|422)\b/;

export { MAYBE_CREATED };

/** Errors listed in the preview; all of them are in the errors file. */
export const ERRORS_SHOWN = 10;

export function things(kind: BulkKind, count: number): string {
  const n = count.toLocaleString('en-US');
  if (kind === 'links') return `${n} mint link${count === 1 ? '' : 's'}`;
  return `${n} wallet${count === 1 ? '' : 's'}`;
}

export function checkingView(sourceName: string): ModalView {
  return modal({
    title: 'Bulk create',
    close: 'Close',
    // Bold is closed before plain punctuation (":"): Slack does not reliably end bold before a character such as "…".
    blocks: [section(`:hourglass_flowing_sand: Checking ${bold(sourceName, 200)}: nothing is sent yet.`)],
  });
}

/**
 * What the file holds, before anything is sent: how many rows are valid, the first errors by row and
 * column (all of them in a file on request), and Start when there is anything to send.
 */
export function previewView(
  job: BulkJob,
  errors: ReadonlyArray<Pick<BulkRow, 'rowNumber' | 'error'>>,
  options: {
    errorsSent?: boolean;
    dropped?: readonly BulkJob[];
    held?: readonly HeldRow[];
    retried?: RetriedRows;
  } = {},
): ModalView {
  const invalid = job.totalRows - job.validRows;
  const startable = job.validRows > 0 || job.heldRows > 0;
  const source = job.retryOf ? `*Retry of ${job.retryOf}*` : `From ${bold(job.sourceName, 200)}`;
  const rows = `${job.totalRows.toLocaleString('en-US')}${job.retryOf ? ' failed' : ''} row${job.totalRows === 1 ? '' : 's'}`;
  const blocks: KnownBlock[] = [
    section(
      job.retryOf && job.totalRows === 0
        ? `${source}: no row failed for certain. ${onlyHeldText(job.heldRows)}`
        : `${source}: ${rows}, ` +
            `*${things(job.kind, job.validRows)} ready to create*` +
            (invalid > 0 ? `, *${invalid.toLocaleString('en-US')} with errors* (left out)` : ''),
    ),
  ];
  if (job.kind === 'links') blocks.push(context(`Defaults: ${defaultsText(job.defaults)}`));
  if (job.retryOf && options.retried && options.retried.failedCount > 0) blocks.push(failedBlock(options.retried));
  if (invalid > 0) {
    const lines = errors.slice(0, ERRORS_SHOWN).map((r) => `• Row ${r.rowNumber}: ${escapeAndCut(r.error ?? '', 250)}`);
    const more = invalid > lines.length ? ` (the first ${lines.length} of ${invalid.toLocaleString('en-US')})` : '';
    blocks.push(section(`*Errors*${more}\n${lines.join('\n')}`));
    blocks.push(
      options.errorsSent
        ? context(':white_check_mark: All the errors are in a CSV file in your DM with the app.')
        : actionsRow(
            'bulk_errors',
            buttonOf(BULK.buttons.errorsFile, {
              value: job.id,
              label:
                invalid === 1
                  ? 'Send me the error as CSV'
                  : `Send me all ${invalid.toLocaleString('en-US')} errors as CSV`,
            }),
          ),
    );
  }
  if (job.heldRows > 0) blocks.push(...heldBlocks(job, options.held ?? []));
  if (job.retryOf && options.retried && options.retried.invalidCount > 0)
    blocks.push(context(neverSentText(job.retryOf, options.retried.invalidCount)));
  if (options.dropped?.length) blocks.push(context(droppedText(options.dropped)));
  const numbering = job.retryOf
    ? `Rows keep their numbers from the file of ${job.retryOf}.`
    : 'Rows are numbered as in a spreadsheet: the header is row 1.';
  // The job named as its progress message will name it ("Bulk job BK-…"), not a bare id.
  blocks.push(
    context(
      startable
        ? `Bulk job ${job.id}: nothing is sent until you press *Start*. ${numbering}`
        : `Bulk job ${job.id}: no row can be sent. Fix the file and submit it again. ${numbering}`,
    ),
  );
  return modal({
    callbackId: BULK.forms.start.callbackId,
    title: 'Bulk create: check',
    ...(startable ? { submit: 'Start' } : {}),
    close: startable ? 'Cancel' : 'Close',
    privateMetadata: job.id,
    blocks,
  });
}

/** A retry's headline when its only rows may have been created: what the person can do about them. */
function onlyHeldText(count: number): string {
  return count === 1
    ? 'The row below may have been created: check it with the Mint service, and tick it to send it again only if it was not. Otherwise there is nothing to retry: close.'
    : `The ${count.toLocaleString('en-US')} rows below may have been created: check them with the Mint service, and tick them to send them again only if they were not. Otherwise there is nothing to retry: close.`;
}

/** A row as a retry's preview lists it: its number, its cells (shortened) and what happened to it. */
function rowLine(row: HeldRow, otherwise: string): string {
  const cells = row.cells.filter((cell) => cell.trim() !== '').join(', ');
  const what = cells ? ` (${escapeAndCut(cells, 60)})` : '';
  return `• Row ${row.rowNumber}${what}: ${escapeAndCut(row.error ?? otherwise, 150)}`;
}

/**
 * The failed rows a retry sends again, with the error each got. Those the service refused as they were (a
 * 400, 404 or 422) will likely be refused again: the retry sends the same cells with the same defaults.
 */
function failedBlock(retried: RetriedRows): KnownBlock {
  const lines = retried.failed.slice(0, FAILED_SHOWN).map((row) => rowLine(row, 'failed'));
  const count = retried.failedCount;
  const more = count > lines.length ? ` (the first ${lines.length} of ${count.toLocaleString('en-US')})` : '';
  const repeating = retried.failed.filter((row) => REPEATS.test(row.error ?? '')).length;
  const one = repeating === 1;
  const which = repeating < lines.length ? `${repeating} of them` : one ? 'This row' : 'These rows';
  const warning =
    repeating === 0
      ? ''
      : `\n:warning: ${which} ${one ? 'was refused as it is' : 'were refused as they are'} (400, 404 or 422): sent ` +
        `again unchanged, ${one ? 'it' : 'they'} will likely fail again, and a retry cannot change the defaults. ` +
        'To change them, fix the file and upload it as a new job with *Bulk create*.';
  return section(`*Failed, sent again*${more}\n${lines.join('\n')}${warning}`);
}

/** Why the rows with errors in the retried job's file are not in its retry. */
function neverSentText(retryOf: string, count: number): string {
  const rows = count === 1 ? '1 row' : `${count.toLocaleString('en-US')} rows`;
  const were = count === 1 ? 'it was' : 'they were';
  return (
    `${rows} of ${retryOf} had errors in the file and ${count === 1 ? 'is' : 'are'} not retried: ${were} never sent. ` +
    `To send ${count === 1 ? 'it' : 'them'}, fix the file and upload it as a new job with *Bulk create*.`
  );
}

/**
 * A retry's rows whose outcome was unknown in the job it retries, apart from the others: the Mint service may
 * have created them, so they are sent again only if the person ticks the box (off by default).
 */
function heldBlocks(job: BulkJob, held: readonly HeldRow[]): KnownBlock[] {
  const count = job.heldRows;
  const n = count.toLocaleString('en-US');
  const lines = held.slice(0, HELD_SHOWN).map((row) => rowLine(row, 'outcome not recorded'));
  const more = count > lines.length ? ` (the first ${lines.length})` : '';
  const them = count === 1 ? 'it' : 'them';
  return [
    section(
      `:warning: *${n} ${MAYBE_CREATED}*${more}: ${job.retryOf ?? 'the job'} sent ${count === 1 ? 'this row' : 'these rows'}, ` +
        `but the outcome was not recorded: the Mint service may have created ${them}. ` +
        `Not retried unless you choose ${them}.\n${lines.join('\n')}`,
    ),
    checkboxInput({
      blockId: HELD_ROWS_BLOCK,
      label: 'Maybe created',
      choice: { value: HELD_ROWS_CHOICE, label: count === 1 ? 'Retry this row too' : `Retry these ${n} rows too` },
      checked: false,
      hint: `Only once you have checked that the Mint service did not create ${them}: any it did create would be created twice.`,
    }),
  ];
}

/** Drafts named in the note, at most. */
const DROPPED_NAMED = 3;

/** The note on a preview whose check made room by dropping the requester's oldest unstarted ones. */
function droppedText(dropped: readonly BulkJob[]): string {
  const named = dropped
    .slice(0, DROPPED_NAMED)
    .map((job) => `${job.id} (${bold(job.sourceName, 80)}, checked ${slackDate(job.createdAt)})`);
  const more = dropped.length > DROPPED_NAMED ? ` and ${dropped.length - DROPPED_NAMED} more` : '';
  const which =
    dropped.length === 1
      ? 'your oldest unstarted check was dropped'
      : `your ${dropped.length} oldest unstarted checks were dropped`;
  const gone = dropped.length === 1 ? 'it can no longer be started' : 'they can no longer be started';
  return (
    `:wastebasket: To make room, ${which}: ${named.join(', ')}${more}; ${gone}. ` +
    `You keep your ${DRAFTS_KEPT} newest checks until you start them (for a day at most).`
  );
}

export function startedView(job: BulkJob): ModalView {
  return noticeModal(
    'Bulk create',
    `:rocket: *${job.id} started*: ${things(job.kind, job.validRows)}. Its progress, with Pause and Cancel, is in your DM with the app, and the results file comes there when it ends.`,
  );
}

function defaultsText(defaults: Record<string, unknown>): string {
  const parts: string[] = [];
  if (typeof defaults.nftId === 'string') parts.push(`NFT ${inlineCode(defaults.nftId, 100)}`);
  else parts.push('no default NFT ID (each row gives its own)');
  if (typeof defaults.walletOptions === 'string') parts.push(enumLabel(defaults.walletOptions));
  if (typeof defaults.type === 'string') parts.push(enumLabel(defaults.type));
  parts.push(defaults.isActive === false ? 'inactive' : 'active');
  if (typeof defaults.startDate === 'string') parts.push(`claim from ${slackDate(new Date(defaults.startDate))}`);
  if (typeof defaults.endDate === 'string') parts.push(`claim until ${slackDate(new Date(defaults.endDate))}`);
  return parts.join(' · ');
}

/** Pause or Resume, and Cancel (confirmed): on the progress message and on Home. */
export function controlButtons(job: BulkJob, blockId: string): ActionsBlock | undefined {
  if (job.status !== 'running' && job.status !== 'paused') return undefined;
  const cancel = buttonOf(BULK.buttons.cancel, {
    value: job.id,
    confirm: {
      title: { type: 'plain_text', text: 'Cancel this job?' },
      text: {
        type: 'plain_text',
        text: 'Rows not sent yet are not sent. Rows being sent finish; the results file lists every row.',
      },
      confirm: { type: 'plain_text', text: 'Cancel the job' },
      deny: { type: 'plain_text', text: 'Keep it' },
      style: 'danger',
    },
  });
  const toggle =
    job.status === 'running'
      ? buttonOf(BULK.buttons.pause, { value: job.id })
      : buttonOf(BULK.buttons.resume, { value: job.id });
  return actionsRow(blockId, toggle, cancel);
}
