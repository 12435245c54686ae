/*
 * Bulk create over each transport, end to end: a file read behind url_private_download, and a job from the
 * command's form run to its end with its results file, as Slack sends them over HTTP (signed) and Socket Mode.
 * Every behaviour of the form and the preview (the shortcut, the errors file too) is in bulk-check.test.ts.
 */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { BULK_BLOCKS } from '../../../src/capabilities/bulk/bulk-form.js';
import { useApp, useFakes } from '../../kit/fakes.js';
import { expectNoRejectedSlackCalls, expectNoSecretsLeaked, textOf } from '../../kit/slack-checks.js';
import { checkCsv, csvRows, ended, start, viewWhen } from './bulk-kit.js';

const B = BULK_BLOCKS;

/* From the form to the preview: the CSV by file or by paste, every row checked, nothing sent before Start. */
describe.each(['http', 'socket'] as const)('bulk create: the form and its preview (%s mode)', (mode) => {
  const fakes = useFakes();
  const running = useApp(fakes, mode, { env: { MINT_API_TIMEOUT_MS: '800' } });
  afterEach(() => expectNoRejectedSlackCalls(fakes.slack));
  afterAll(() => expectNoSecretsLeaked(fakes.slack, running.app));

  it('reads a file behind url_private_download with the bot token and previews it, errors by row and column', async () => {
    const csv = [
      'EMAIL,CustomerId,maxCheckoutQuantity,nftid,IsActive',
      'ann@example.com,,2,,',
      'not-an-email,cus_1;cus_2,0,,maybe',
      ',cus_3 cus_4,,nft-own,false',
      'bo@example.com,"cus_5;bad!id",,,',
    ].join('\r\n');
    const file = fakes.slack.hostFile({ content: `\uFEFF${csv}`, name: 'campaign.csv' });
    const { next: preview } = await checkCsv(running.app, fakes.slack, {
      [B.file]: { files: [file] },
      [B.nftId]: 'nft-default',
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
  });

  it('creates wallets: userId, or a new user for an empty one (a blank line or bare commas are no row, but count as one)', async () => {
    const { view } = await running.app.commandOpeningModal('bulk wallets');
    // Rows as a spreadsheet numbers them: 2 cus_w1, 3 blank, 4 "" (a new user), 5 bare comma, 6 cus w2.
    await running.app.submitView(view, { [B.paste]: 'USERID\ncus_w1\n\n""\n,\ncus w2' });
    const preview = await viewWhen(fakes.slack, view.id, (v) => v.callback_id === 'bulk_preview');
    expect(textOf(preview.blocks)).toContain('3 rows, *2 wallets ready to create*, *1 with errors*');
    expect(textOf(preview.blocks)).toContain('Row 6: USERID: must be 1-128 letters');
    const job = await start(running.app, fakes.slack, preview);
    const { results } = await ended(fakes.slack, job);
    expect(fakes.mint.requestsTo('create_wallet').map((r) => r.body)).toEqual([{ userId: 'cus_w1' }, {}]);
    expect(csvRows(results)).toEqual([
      ['row', 'USERID', 'outcome', 'error'],
      ['2', 'cus_w1', 'created', ''],
      ['4', '', 'created', ''],
      ['6', 'cus w2', 'not sent (error in the file)', expect.stringContaining('USERID: must be 1-128 letters')],
    ]);
  });
});
