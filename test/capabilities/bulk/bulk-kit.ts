import { parse } from 'csv-parse/sync';
import { expect } from 'vitest';
import { BULK_BLOCKS } from '../../../src/capabilities/bulk/bulk-form.js';
import type { SlackDriver } from '../../kit/slack-driver.js';
import type { FakeSlack } from '../../kit/fake-slack.js';
import type { Fakes } from '../../kit/fakes.js';
import { TEST_USER_ID } from '../../kit/slack-ids.js';
import type { PostedMessage, SlackView } from '../../kit/slack-payloads.js';
import type { Entry } from '../../kit/view-state.js';
import { textOf } from '../../kit/slack-checks.js';

/* Steps of the bulk flow as a user takes them, for the end-to-end tests. */

export const DM = `D${TEST_USER_ID.slice(1)}`;

/** What a Check that finds every check slot taken is told, on the form itself. */
export const BUSY = 'The app is checking other files right now. Nothing is lost: press Check again in a minute.';

/** A CSV of `n` link rows with distinct emails (u1@example.com ...), `start` first. */
export function linkCsv(n: number, start = 1, header = 'email'): string {
  return [header, ...Array.from({ length: n }, (_, i) => `u${start + i}@example.com`)].join('\n');
}

/** The view a modal shows once `check` says yes (the app updates it after its ack). */
export async function viewWhen(
  slack: FakeSlack,
  viewId: string,
  check: (view: Record<string, any>) => boolean,
  timeoutMs = 10_000,
): Promise<SlackView> {
  return slack.waitFor(
    () => {
      const view = slack.view(viewId);
      return check(view) ? view : undefined;
    },
    timeoutMs,
    `the modal ${viewId} to change`,
  );
}

/** Opens the form with `/mintlink bulk ...`, submits it, and resolves with the preview (or the form shown again). */
export async function checkCsv(
  app: SlackDriver,
  slack: FakeSlack,
  entries: Record<string, Entry>,
  command = 'bulk',
): Promise<{ form: SlackView; ack: Record<string, unknown> | undefined; next: SlackView }> {
  const { view: form } = await app.commandOpeningModal(command);
  const ack = await app.submitView(form, entries);
  if (ack?.response_action === 'errors') return { form, ack, next: form };
  const next = await viewWhen(slack, form.id, (v) => !JSON.stringify(v).includes('Checking'));
  return { form, ack, next };
}

/** Pastes `csv` (links unless said otherwise) and resolves with the preview. */
export async function previewOf(app: SlackDriver, slack: FakeSlack, csv: string, extra: Record<string, Entry> = {}) {
  const { next } = await checkCsv(app, slack, { [BULK_BLOCKS.paste]: csv, ...extra });
  expect(next.callback_id).toBe('bulk_preview');
  return next;
}

/** Presses Start on a preview; resolves with the job id and its progress message (channel and ts). */
export async function start(app: SlackDriver, slack: FakeSlack, preview: SlackView, userId = TEST_USER_ID) {
  const jobId = String(preview.private_metadata);
  await app.submitView(preview, {}, userId);
  const posted = await slack.waitForCall(
    'chat.postMessage',
    (c) => c.params.channel === userId && textOf(c.params.blocks).includes(jobId),
    10_000,
  );
  return { jobId, channel: String(posted.answer?.channel), ts: String(posted.answer?.ts) };
}

/** The progress message as it is now, as a message a button can be clicked on. */
export function progress(slack: FakeSlack, job: { channel: string; ts: string }): PostedMessage {
  return slack.message(job.channel, job.ts);
}

/** Resolves once the job's message shows it ended; returns the results file's text (when one was sent). */
export async function ended(slack: FakeSlack, job: { jobId: string; channel: string; ts: string }, timeoutMs = 20_000) {
  await slack.waitFor(
    () => textOf(progress(slack, job).blocks).includes('Ended'),
    timeoutMs,
    `the end of ${job.jobId}`,
  );
  const upload = slack.uploadsTo(job.channel).find((u) => u.filename === `${job.jobId}-results.csv`);
  return { message: progress(slack, job), results: upload ? slack.uploadedText(upload.fileId) : undefined, upload };
}

/**
 * Holds the Mint service's answers (each request arrives and waits) until the returned function is called: a
 * test keeps a job's rows in flight while it does what it is about, however slow the machine, instead of
 * guessing a latency long enough.
 */
export function holdMintAnswers(mint: Fakes['mint']): () => void {
  let answer: () => void = () => undefined;
  mint.holdAnswers = new Promise<void>((resolve) => (answer = resolve));
  return () => {
    answer();
    mint.holdAnswers = undefined;
  };
}

/** A CSV file's rows of cells. */
export function csvRows(text: string | undefined): string[][] {
  return parse(text ?? '');
}

/**
 * The bulk jobs' pace in the fast tier: the same rules (one progress update per gap, the worker's polls) at a
 * tenth of the app's times, so that a job's whole run takes a fraction of a second.
 */
export const QUICK_BULK_PACE = { progressGapMs: 100, progressTickMs: 20, workerPollMs: 50 };

/**
 * A campaign's CSV file behind url_private_download, read with the bot token and previewed with its errors by
 * row and column; nothing sent before Start (on the fast tier and end to end over each transport).
 */
export async function expectCampaignFilePreviewed(
  app: SlackDriver,
  fakes: Pick<Fakes, 'slack' | 'mint'>,
): Promise<void> {
  const csv = [
    'EMAIL,CustomerId,maxCheckoutQuantity,nftid,IsActive',
    'ann@example.com,,2,,',
    'not-an-email,cus_1;cus_2,0,,maybe',
    ',cus_3 cus_4,,nft-own,false',
    'bo@example.com,"cus_5;bad!id",,,',
  ].join('\r\n');
  const file = fakes.slack.hostFile({ content: `\uFEFF${csv}`, name: 'campaign.csv' });
  const { next: preview } = await checkCsv(app, fakes.slack, {
    [BULK_BLOCKS.file]: { files: [file] },
    [BULK_BLOCKS.nftId]: 'nft-default',
  });
  expect(fakes.slack.fileDownloads).toEqual([expect.objectContaining({ fileId: file.id, status: 200 })]);
  expect(preview).toMatchObject({ callback_id: 'bulk_preview', submit: { text: 'Start' } });
  const text = textOf(preview.blocks);
  expect(text).toContain('From *campaign.csv*: 4 rows, *2 mint links ready to create*, *2 with errors*');
  expect(text).toContain(
    'Row 3: EMAIL: must be an email address; maxCheckoutQuantity: must be at least 1; IsActive: must be true or false',
  );
  expect(text).toContain('Row 5: CustomerId: \\"bad!id\\" is not a customer ID');
  expect(text).toContain('NFT `nft-default`');
  expect(fakes.mint.requests).toEqual([]); // nothing is sent before Start
}

/**
 * A wallets job from pasted rows, run to its end: userId, or a new user for an empty one (a blank line or bare
 * commas are no row, but count as one).
 */
export async function expectWalletsJobRun(app: SlackDriver, fakes: Pick<Fakes, 'slack' | 'mint'>): Promise<void> {
  const { view } = await app.commandOpeningModal('bulk wallets');
  // Rows as a spreadsheet numbers them: 2 cus_w1, 3 blank, 4 "" (a new user), 5 bare comma, 6 cus w2.
  await app.submitView(view, { [BULK_BLOCKS.paste]: 'USERID\ncus_w1\n\n""\n,\ncus w2' });
  const preview = await viewWhen(fakes.slack, view.id, (v) => v.callback_id === 'bulk_preview');
  expect(textOf(preview.blocks)).toContain('3 rows, *2 wallets ready to create*, *1 with errors*');
  expect(textOf(preview.blocks)).toContain('Row 6: USERID: must be 1-128 letters');
  const job = await start(app, fakes.slack, preview);
  const { results } = await ended(fakes.slack, job);
  expect(fakes.mint.requestsTo('create_wallet').map((r) => r.body)).toEqual([{ userId: 'cus_w1' }, {}]);
  expect(csvRows(results)).toEqual([
    ['row', 'USERID', 'outcome', 'error'],
    ['2', 'cus_w1', 'created', ''],
    ['4', '', 'created', ''],
    ['6', 'cus w2', 'not sent (error in the file)', expect.stringContaining('USERID: must be 1-128 letters')],
  ]);
}
