import { afterAll, describe, expect, it } from 'vitest';
import { BULK_BLOCKS } from '../../../src/capabilities/bulk/bulk-form.js';
import { useFakes, useListenerApp } from '../../kit/fakes.js';
import { TEST_USER_ID } from '../../kit/slack-ids.js';
import { expectNoSecretsLeaked, textOf } from '../../kit/slack-checks.js';
import { csvRows, ended, linkCsv, previewOf, progress, start, QUICK_BULK_PACE } from './bulk-kit.js';
import { BULK } from '../../../src/capabilities/bulk/actions.js';

/*
 * Slack failing, or the user moving on, at the wrong moment: the job's message, Home and the modal still end
 * up saying what is true. Each test lists the Slack refusals it provoked: no other is allowed.
 */
describe('bulk create: when Slack fails at the end, or the user moves on', () => {
  const fakes = useFakes();
  const running = useListenerApp(fakes, {
    bulkPace: QUICK_BULK_PACE,
    env: { MINT_API_TIMEOUT_MS: '30000' }, // a Mint budget no loaded machine reaches: Slack's failures are the point
  });
  const app = () => running.app;
  afterAll(() => expectNoSecretsLeaked(fakes.slack, running.app));

  const refused = () => fakes.slack.failedCalls.map((c) => `${c.method} ${String(c.answer?.error)}`);
  const job = async (csv: string) =>
    start(app(), fakes.slack, await previewOf(app(), fakes.slack, csv, { [BULK_BLOCKS.nftId]: 'nft-s' }));

  it('shows the end of a job even when Slack refused the update that showed it: the message is made good', async () => {
    // Every update of the message fails, until Slack has refused the one that shows the end.
    fakes.slack.answerNext('chat.update', { body: { ok: false, error: 'internal_error' } }, 1_000);
    const started = await job(linkCsv(2));
    const isEnd = (c: { params: Record<string, unknown> }) =>
      c.params.ts === started.ts && textOf(c.params.blocks).includes('Ended');
    const lost = await fakes.slack.waitFor(
      () => fakes.slack.callsTo('chat.update').find((call) => isEnd(call)),
      10_000,
      'the end, refused',
    );
    expect(lost.answer).toEqual({ ok: false, error: 'internal_error' });
    fakes.slack.forgetAnswers('chat.update');

    const { message, results } = await ended(fakes.slack, started, 15_000);
    expect(message.blocks).toEqual(lost.params.blocks);
    expect(textOf(message.blocks)).toContain('*Finished*: *2 created*');
    expect(textOf(message.blocks)).not.toContain(BULK.buttons.pause.actionId);
    expect(textOf(message.blocks)).not.toContain(BULK.buttons.cancel.actionId);
    expect(csvRows(results)).toHaveLength(3);
    await app().waitForIdle();
    expect(new Set(refused())).toEqual(new Set(['chat.update internal_error']));
  }, 30_000);

  it('lists on Home an ended job whose results file could not be sent, and sends the file from there', async () => {
    fakes.slack.answerNext('files.getUploadURLExternal', { body: { ok: false, error: 'internal_error' } });
    const started = await job(linkCsv(2));
    const first = await ended(fakes.slack, started);
    expect(first.upload).toBeUndefined();
    expect(textOf(first.message.blocks)).toContain(
      'The results file could not be sent: Slack refused it (internal_error)',
    );

    await app().event({ type: 'app_home_opened', user: TEST_USER_ID, tab: 'home' });
    await fakes.slack.waitForCall(
      'views.publish',
      (c) => c.params.user_id === TEST_USER_ID && textOf(c.params.view).includes('results file not sent'),
    );
    const home = fakes.slack.view(TEST_USER_ID);
    expect(textOf(home)).toContain(`*${started.jobId}*`);
    expect(textOf(home)).toContain('The results file could not be sent: Slack refused it (internal_error)');
    const clickedAt = Date.now();
    await app().clickOnHome(home, BULK.buttons.resendResults.actionId, TEST_USER_ID, started.jobId);

    await fakes.slack.waitFor(
      () =>
        textOf(progress(fakes.slack, started).blocks).includes('The results file (every row with its outcome) is in'),
      10_000,
      'the message to say the file came',
    );
    const upload = fakes.slack.uploadsTo(started.channel).find((u) => u.filename === `${started.jobId}-results.csv`);
    expect(upload?.completed).toBeTruthy();
    expect(csvRows(upload && fakes.slack.uploadedText(upload.fileId))).toHaveLength(3);
    expect(textOf(progress(fakes.slack, started).blocks)).not.toContain(BULK.buttons.resendResults.actionId);
    // Home no longer lists it (its recent actions may still name the job): a publish built once the file was
    // sent (one built before, by an earlier refresh, may still land after the click).
    const after = await fakes.slack.waitForCall(
      'views.publish',
      (c) =>
        c.at >= clickedAt &&
        c.params.user_id === TEST_USER_ID &&
        !textOf(c.params.view).includes('results file not sent'),
    );
    expect(textOf(after.params.view)).not.toContain(`home_bulk_resend_${started.jobId}`);
    await app().waitForIdle();
    expect(textOf(fakes.slack.view(TEST_USER_ID))).not.toContain('results file not sent');
    // (Two Home refreshes may cross: the Home publisher's own hash check settles that, and is not counted here.)
    expect(refused().filter((r) => r !== 'views.publish hash_conflict')).toEqual([
      'files.getUploadURLExternal internal_error',
    ]);
  }, 30_000);

  it('keeps the started notice when the errors file, asked for just before Start, arrives after it', async () => {
    const preview = await previewOf(app(), fakes.slack, `${linkCsv(2)}\nnot-an-email`, {
      [BULK_BLOCKS.nftId]: 'nft-s',
    });
    // The errors file takes a while to reach the DM; Start is pressed meanwhile.
    fakes.slack.answerNext('files.completeUploadExternal', {
      delayMs: 1_500,
      body: { ok: true, files: [{ id: 'F0ERRORS' }] },
    });
    await app().clickInView(preview, BULK.buttons.errorsFile.actionId);
    await fakes.slack.waitForCall('files.completeUploadExternal');
    const started = await start(app(), fakes.slack, preview);
    const late = await fakes.slack.waitForCall('views.update', (c) => c.params.hash === preview.hash, 10_000);
    expect(late.answer).toEqual({ ok: false, error: 'hash_conflict' });
    expect(textOf(fakes.slack.view(preview.id))).toContain(`${started.jobId} started`);
    await ended(fakes.slack, started);
    await app().waitForIdle();
    expect(textOf(fakes.slack.view(preview.id))).toContain(`${started.jobId} started`);
    expect(refused()).toEqual(['views.update hash_conflict']);
  }, 30_000);
});
