import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { BULK_BLOCKS } from '../../../src/capabilities/bulk/bulk-form.js';
import { LINK_COLUMNS, WALLET_COLUMNS } from '../../../src/platform/mint/row-requests.js';
import { useFakes, useListenerApp } from '../../kit/fakes.js';
import { expectNoRejectedSlackCalls, expectNoSecretsLeaked, textOf } from '../../kit/slack-checks.js';
import { TEST_USER_ID } from '../../kit/slack-ids.js';
import { DM, checkCsv, csvRows, viewWhen, QUICK_BULK_PACE } from './bulk-kit.js';
import { BULK } from '../../../src/capabilities/bulk/actions.js';

/* "Download a sample CSV" on the bulk form: real files, in the DM, that the check accepts as they are. */
describe('bulk create: the sample CSV', () => {
  const fakes = useFakes();
  const running = useListenerApp(fakes, { bulkPace: QUICK_BULK_PACE });
  afterEach(() => expectNoRejectedSlackCalls(fakes.slack));
  afterAll(() => expectNoSecretsLeaked(fakes.slack, running.app));

  it('sends one sample per kind to the DM, says so on the form, and each passes the check as it is', async () => {
    const { view: form } = await running.app.commandOpeningModal('bulk');
    expect(textOf(form.blocks)).toContain(BULK.buttons.sampleCsv.actionId);
    await running.app.clickInView(form, BULK.buttons.sampleCsv.actionId);
    const uploads = await fakes.slack.waitFor(
      () => {
        const done = fakes.slack.uploadsTo(DM).filter((u) => u.filename.startsWith('mintlink-sample-'));
        return done.length === 2 ? done : undefined;
      },
      5_000,
      'the two sample files',
    );
    expect(uploads.map((u) => u.filename)).toEqual(['mintlink-sample-links.csv', 'mintlink-sample-wallets.csv']);
    expect(uploads[0]?.completed?.title).toBe('Sample CSV: mint links');
    const intro = fakes.slack
      .callsTo('chat.postMessage')
      .find((c) => c.answer?.channel === DM && String(c.params.text).includes('*Mint links*'));
    expect(intro?.params.text).toContain('Replace the example values (the NFT ID above all)');
    // The wallet file's column is the spec's `userId`; the forms call it the customer ID: the sample says both.
    const walletIntro = fakes.slack
      .callsTo('chat.postMessage')
      .find((c) => c.answer?.channel === DM && String(c.params.text).includes('*Wallets*'));
    expect(walletIntro?.params.text).toContain('The column `userId` is the customer ID');

    // The form says where the files went, in place of the button; what was typed in it stays (same inputs).
    const shown = await viewWhen(fakes.slack, form.id, (v) => textOf(v.blocks).includes('are in your DM with the app'));
    expect(textOf(shown.blocks)).not.toContain(BULK.buttons.sampleCsv.actionId);
    const inputs = (v: Record<string, unknown>) =>
      (v.blocks as Array<Record<string, any>>).filter((b) => b.type === 'input').map((b) => b.block_id);
    expect(inputs(shown)).toEqual(inputs(form));

    const [links, wallets] = uploads.map((u) => fakes.slack.uploadedText(u.fileId));
    expect(csvRows(links)[0]).toEqual([...LINK_COLUMNS]);
    expect(csvRows(links)).toHaveLength(2);
    expect(csvRows(wallets)).toEqual([[...WALLET_COLUMNS], ['user-1001']]);

    // Fed back to Check as they are, each kind's sample has its one row ready and no error.
    for (const [kind, csv, ready] of [
      ['links', links, '1 row, *1 mint link ready to create*'],
      ['wallets', wallets, '1 row, *1 wallet ready to create*'],
    ] as const) {
      const { next } = await checkCsv(running.app, fakes.slack, {
        [BULK_BLOCKS.kind]: kind,
        [BULK_BLOCKS.paste]: csv ?? '',
      });
      expect(next.callback_id).toBe('bulk_preview');
      expect(textOf(next.blocks)).toContain(ready);
      expect(textOf(next.blocks)).not.toContain('with errors');
    }
    expect(fakes.mint.requests).toEqual([]); // checked, never sent
  });

  it('tells the person when Slack refuses the file, and leaves the form as it was', async () => {
    const { view: form } = await running.app.commandOpeningModal('bulk');
    fakes.slack.answerNext('files.getUploadURLExternal', { body: { ok: false, error: 'internal_error' } });
    await running.app.clickInView(form, BULK.buttons.sampleCsv.actionId);
    const note = await fakes.slack.waitForCall('chat.postMessage', (c) =>
      String(c.params.text).includes('The sample CSV files could not be sent'),
    );
    expect(note.params.channel).toBe(TEST_USER_ID);
    await running.app.waitForIdle();
    expect(textOf(fakes.slack.view(form.id).blocks)).toContain(BULK.buttons.sampleCsv.actionId);
    expect(fakes.slack.failedCalls.map((c) => c.method)).toEqual(['files.getUploadURLExternal']);
    fakes.slack.reset(); // the one refusal was this test's own
  });
});
