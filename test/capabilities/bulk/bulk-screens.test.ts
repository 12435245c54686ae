import { afterEach, describe, expect, it } from 'vitest';
import { progressMessage } from '../../../src/capabilities/bulk/progress-message.js';
import type { RowCounts } from '../../../src/platform/store/bulk-jobs/jobs.js';
import { useFakes, useListenerApp } from '../../kit/fakes.js';
import { TEST_USER_ID } from '../../kit/slack-ids.js';
import { expectNoRejectedSlackCalls, textOf } from '../../kit/slack-checks.js';
import { ephemeralText, messageText, modalText, stabilize } from '../../kit/screen-text.js';
import { expectScreen } from '../../kit/screens.js';
import { stableJobIds } from './bulk-job-ids.js';
import { bulkJob } from './bulk-job-fixture.js';
import { ended, holdMintAnswers, linkCsv, previewOf, progress, start, QUICK_BULK_PACE } from './bulk-kit.js';
import { BULK } from '../../../src/capabilities/bulk/actions.js';

/*
 * What the person who runs a bulk job sees outside its form: the preview of the checked file, the job's
 * message in their DM while it runs, paused, and ended with failures, and the message the results file comes
 * with. Golden screens under test/screens/bulk/. (The bulk form's own states are in the modal goldens.)
 */

const ALICE = TEST_USER_ID;

/** The job's message in the requester's DM. */
const inDm = (name: string, message: unknown) =>
  expectScreen(name, stableJobIds(messageText(message as Record<string, unknown>, { where: 'DM' })));
const APPROVER = 'U0BEN0001';

describe('bulk job screens', () => {
  const fakes = useFakes();
  // One row at a time, so which row meets which answer of the Mint service is the same on every run. The Mint
  // calls' time budget shows only on the screens of a row that got no answer (their own app below): here it is
  // long enough for a loaded machine, where a row answered late would otherwise show as one never answered.
  const running = useListenerApp(fakes, {
    bulkPace: QUICK_BULK_PACE,
    env: { MINT_API_TIMEOUT_MS: '30000', BULK_CONCURRENCY: '1', DELETION_APPROVERS: APPROVER },
  });
  afterEach(() => expectNoRejectedSlackCalls(fakes.slack));

  const csv = (rows: string[]) => ['email,nftId', ...rows].join('\n');

  it('previews a file with good rows and rows with errors', async () => {
    const preview = await previewOf(
      running.app,
      fakes.slack,
      csv(['ana@example.com,nft-gold', 'not-an-email,nft-gold', 'ben@example.com,', 'chloe@example.com,nft-silver']),
      { bulk_nft_id: 'nft-default' },
    );
    await expectScreen('bulk/preview--some-rows-with-errors', stableJobIds(modalText(preview)));
  });

  it('shows the job running, paused by its requester, and resumed to the end', async () => {
    const answer = holdMintAnswers(fakes.mint); // the first row is still on its way when Pause is pressed
    const preview = await previewOf(running.app, fakes.slack, linkCsv(4), { bulk_nft_id: 'nft-bulk' });
    const job = await start(running.app, fakes.slack, preview);
    const posted = fakes.slack.callsTo('chat.postMessage').find((c) => c.answer?.ts === job.ts);
    await inDm('bulk/progress--started', posted?.params);

    await fakes.slack.waitFor(() => fakes.mint.requestsTo('create_link').length === 1, 5_000, 'the first row');
    await running.app.click(progress(fakes.slack, job), BULK.buttons.pause.actionId);
    await fakes.slack.waitFor(
      () => textOf(progress(fakes.slack, job).blocks).includes('*Paused* by'),
      5_000,
      'the job to pause',
    );
    answer();
    await running.app.waitForIdle();
    expect(fakes.mint.requestsTo('create_link')).toHaveLength(1);
    await fakes.slack.waitFor(
      () => textOf(progress(fakes.slack, job).blocks).includes('*1 done*'),
      5_000,
      'the paused job to show the row that was on its way',
    );
    await inDm('bulk/progress--paused', progress(fakes.slack, job));

    await running.app.click(progress(fakes.slack, job), BULK.buttons.resume.actionId, APPROVER);
    const { message } = await ended(fakes.slack, job);
    await inDm('bulk/progress--done', message);
  });

  it('ends cancelled by an approver: the rows not sent yet are listed as not sent', async () => {
    const answer = holdMintAnswers(fakes.mint); // the first row is on its way when Cancel is pressed
    const preview = await previewOf(running.app, fakes.slack, linkCsv(3), { bulk_nft_id: 'nft-bulk' });
    const job = await start(running.app, fakes.slack, preview);
    await fakes.slack.waitFor(() => fakes.mint.requestsTo('create_link').length === 1, 5_000, 'the first row');
    await running.app.click(progress(fakes.slack, job), BULK.buttons.cancel.actionId, APPROVER);
    answer();
    const { message } = await ended(fakes.slack, job);
    expect(fakes.mint.requestsTo('create_link')).toHaveLength(1);
    await inDm('bulk/progress--cancelled', message);
  });

  it('is refused to someone who neither started the job nor approves', async () => {
    const answer = holdMintAnswers(fakes.mint); // the job is running when the click comes
    const preview = await previewOf(running.app, fakes.slack, linkCsv(2), { bulk_nft_id: 'nft-bulk' });
    const job = await start(running.app, fakes.slack, preview);
    const url = await running.app.click(progress(fakes.slack, job), BULK.buttons.cancel.actionId, 'U0EVE0001');
    const [refusal] = await fakes.slack.waitForResponse(url);
    await expectScreen('bulk/cancel-click--not-allowed', stableJobIds(ephemeralText(refusal?.body ?? {})));
    answer();
    await ended(fakes.slack, job);
  });

  it('ends with failed, unknown and invalid rows, and sends the results file with a summary', async () => {
    const preview = await previewOf(running.app, fakes.slack, linkCsv(5).concat('\nnot-an-email'), {
      bulk_nft_id: 'nft-bulk',
    });
    // Row 1: the service refuses it; row 2: a 500, which leaves it unknown (it may exist); rows 3 to 5 are created.
    fakes.mint.failNext('create_link', { mode: 'status', status: 400, body: { message: 'NFT nft-bulk is sold out' } });
    fakes.mint.failNext('create_link', { mode: 'status', status: 500 });
    const job = await start(running.app, fakes.slack, preview);
    const { message, upload, results } = await ended(fakes.slack, job);
    await inDm('bulk/progress--done-with-failures', message);
    // The results file comes as a file shared in the DM, with the summary as its comment.
    const comment = messageText({ text: upload?.completed?.initialComment }, { where: 'DM' });
    await expectScreen(
      'bulk/results-message--with-failures',
      stableJobIds(`${comment}📎 ${upload?.completed?.title} (${upload?.filename})\n`),
    );
    // The file itself, as the person opens it: every row with its outcome.
    await expectScreen('bulk/results-file--with-failures', stableJobIds(stabilize(results ?? '')));
  });
});

/*
 * A row the Mint service never answered: the time budget (1 s here) shows in the results file. An app of its own,
 * whose only Mint call is that row's.
 */
describe('bulk job screens: a row with no answer', () => {
  const fakes = useFakes();
  const running = useListenerApp(fakes, {
    bulkPace: QUICK_BULK_PACE,
    env: { MINT_API_TIMEOUT_MS: '1000', BULK_CONCURRENCY: '1' },
  });
  afterEach(() => expectNoRejectedSlackCalls(fakes.slack));

  it('lists the row as maybe created, with the time it was given', async () => {
    const preview = await previewOf(running.app, fakes.slack, linkCsv(1), { bulk_nft_id: 'nft-bulk' });
    fakes.mint.failNext('create_link', { mode: 'hang' });
    const job = await start(running.app, fakes.slack, preview);
    const { results } = await ended(fakes.slack, job);
    expect(fakes.mint.requestsTo('create_link')).toHaveLength(1);
    await expectScreen('bulk/results-file--no-answer', stableJobIds(stabilize(results ?? '')));
  });
});

/*
 * A job in the middle of its run: how many rows are done and the pace depend on the moment the message is
 * updated, so this state is rendered from fixed counts, the way the app builds it.
 */
describe('bulk progress in the middle of a run', () => {
  const now = new Date();
  const minutesAgo = (minutes: number) => new Date(now.getTime() - minutes * 60_000);
  const job = bulkJob({
    id: 'BK-7RUN42',
    teamId: 'T0TEST001',
    requesterId: ALICE,
    sourceName: 'spring-campaign.csv',
    totalRows: 2_400,
    validRows: 2_380,
    createdAt: minutesAgo(5),
    updatedAt: now,
    startedAt: minutesAgo(5),
    messageChannel: 'D0ALICE01',
  });

  const counts: RowCounts = {
    invalid: 20,
    pending: 1_180,
    sending: 4,
    done: 1_170,
    failed: 24,
    unknown: 2,
    cancelled: 0,
  };

  it('shows the bar, the counts, the pace and the time left', async () => {
    const shown = progressMessage({
      job,
      counts,
      ratePerSecond: 4.3,
      mint: { pausedUntil: undefined, circuit: 'closed' },
      now,
    });
    await inDm('bulk/progress--running', shown);
  });

  it('says the job waits while the Mint service is failing', async () => {
    const shown = progressMessage({
      job,
      counts,
      ratePerSecond: 0,
      mint: { pausedUntil: undefined, circuit: 'open' },
      now,
    });
    await inDm('bulk/progress--waiting-for-the-service', shown);
  });
});
