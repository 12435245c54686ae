import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { BULK_BLOCKS } from '../../../src/capabilities/bulk/bulk-form.js';
import { useFakes, useListenerApp } from '../../kit/fakes.js';
import { expectNoRejectedSlackCalls, expectNoSecretsLeaked, textOf } from '../../kit/slack-checks.js';
import {
  DM,
  QUICK_BULK_PACE,
  checkCsv,
  csvRows,
  expectCampaignFilePreviewed,
  expectWalletsJobRun,
  linkCsv,
  previewOf,
  viewWhen,
} from './bulk-kit.js';
import { BULK } from '../../../src/capabilities/bulk/actions.js';

const B = BULK_BLOCKS;
const future = (days: number) => new Date(Date.now() + days * 86_400_000);

/* From the form to the preview: the CSV by file or by paste, every row checked, nothing sent before Start. */
describe('bulk create: the form and its preview', () => {
  const fakes = useFakes();
  const running = useListenerApp(fakes, { bulkPace: QUICK_BULK_PACE, env: { MINT_API_TIMEOUT_MS: '30000' } });
  afterEach(() => expectNoRejectedSlackCalls(fakes.slack));
  afterAll(() => expectNoSecretsLeaked(fakes.slack, running.app));

  it('opens the form from /mintlink bulk and from the "Bulk create" shortcut', async () => {
    const { view } = await running.app.commandOpeningModal('bulk wallets');
    expect(view).toMatchObject({ callback_id: 'bulk_form', title: { text: 'Bulk create' }, submit: { text: 'Check' } });
    const blocks = view.blocks as Array<Record<string, any>>;
    expect(blocks.find((b) => b.block_id === B.file)?.element).toMatchObject({ type: 'file_input', max_files: 1 });
    expect(blocks.find((b) => b.block_id === B.kind)?.element.initial_option.value).toBe('wallets');
    fakes.slack.reset();
    await running.app.shortcut('bulk_create');
    await fakes.slack.waitForCall('views.open');
    expect(fakes.slack.lastOpenedView().callback_id).toBe('bulk_form');
  });

  it('reads a file behind url_private_download with the bot token and previews it, errors by row and column', async () => {
    await expectCampaignFilePreviewed(running.app, fakes);
  });

  it('takes pasted CSV; a job of rows with errors only has no Start', async () => {
    const preview = await previewOf(running.app, fakes.slack, 'email,nftId\nnope,n1\nx@example.com,');
    expect(preview.submit).toBeUndefined();
    expect(textOf(preview.blocks)).toContain('no row can be sent. Fix the file and submit it again.');
    expect(textOf(preview.blocks)).toContain('Row 2: email: must be an email address');
    expect(textOf(preview.blocks)).toContain('Row 3: nftId: is required (in the row, or as the default NFT ID)');
  });

  it('answers on the form itself: neither or both sources, a file over 2 MB, claim dates that make no sense', async () => {
    const none = await checkCsv(running.app, fakes.slack, {});
    expect(none.ack).toEqual({
      response_action: 'errors',
      errors: { [B.file]: 'Attach a CSV file, or paste CSV text below.' },
    });
    const small = fakes.slack.hostFile({ content: 'email\na@b.co', name: 'a.csv' });
    const both = await checkCsv(running.app, fakes.slack, { [B.file]: { files: [small] }, [B.paste]: 'email\na@b.co' });
    expect(both.ack).toMatchObject({ errors: { [B.paste]: 'Give a file or pasted text, not both.' } });
    const big = fakes.slack.hostFile({ content: 'email\n', name: 'big.csv', size: 3 * 1024 * 1024 });
    const tooBig = await checkCsv(running.app, fakes.slack, {
      [B.file]: { files: [big] },
      [B.claimStart]: future(3),
      [B.claimEnd]: future(2),
    });
    expect(tooBig.ack).toMatchObject({
      errors: {
        [B.file]: 'The file is 3.0 MB: at most 2 MB per file. Split it into smaller files.',
        [B.claimEnd]: 'The claim must end after it starts.',
      },
    });
    const long = await checkCsv(running.app, fakes.slack, { [B.paste]: `email\n${'a'.repeat(3_001)}` });
    expect(long.ack).toMatchObject({
      errors: { [B.paste]: 'Paste at most 3,000 characters; attach a file for more.' },
    });
    await running.app.waitForIdle();
    expect(fakes.slack.fileDownloads).toEqual([]); // refused before any download
  });

  it('shows the form again, saying why, for a table it cannot use: unknown columns, too many rows, not CSV', async () => {
    const unknown = await checkCsv(running.app, fakes.slack, { [B.paste]: 'email,emial,nftId\na@b.co,x,n' });
    expect(unknown.next.callback_id).toBe('bulk_form');
    expect(textOf(unknown.next.blocks)).toContain('the column \\"emial\\" is not known');

    const rows = fakes.slack.hostFile({ content: linkCsv(5_001), name: 'huge.csv' });
    const tooMany = await checkCsv(running.app, fakes.slack, { [B.file]: { files: [rows] } });
    expect(textOf(tooMany.next.blocks)).toContain('It has 5,001 rows; a job takes at most 5,000');

    const quote = await checkCsv(running.app, fakes.slack, { [B.paste]: 'email\n"a@b.co' });
    expect(textOf(quote.next.blocks)).toContain('It cannot be read as CSV');

    const binary = fakes.slack.hostFile({ content: Buffer.from([0xff, 0xfe, 0x00, 0x41]), name: 'x.csv' });
    const notText = await checkCsv(running.app, fakes.slack, { [B.file]: { files: [binary] } });
    expect(textOf(notText.next.blocks)).toContain('It is not a text file');
    expect(fakes.mint.requests).toEqual([]);
  });

  it('says so when Slack will not hand the file over', async () => {
    const file = fakes.slack.hostFile({ content: 'email\na@b.co', name: 'gone.csv' });
    fakes.slack.hostedFiles.delete(file.id);
    const { next } = await checkCsv(running.app, fakes.slack, { [B.file]: { files: [file] } });
    expect(textOf(next.blocks)).toContain('Slack no longer has it');
    expect(fakes.slack.fileDownloads.map((d) => d.status)).toEqual([404]);
  });

  it('sends all the errors as a CSV to the DM on request', async () => {
    // A blank line under the header: the first row with data is row 3, in the preview and in the file.
    const lines = ['email,nftId', '', ...Array.from({ length: 14 }, (_, i) => `bad${i},n`), 'ok@example.com,n'];
    const preview = await previewOf(running.app, fakes.slack, lines.join('\n'));
    expect(textOf(preview.blocks)).toContain('(the first 10 of 14)');
    expect(textOf(preview.blocks)).toContain('• Row 3: email: must be an email address');
    await running.app.clickInView(preview, BULK.buttons.errorsFile.actionId);
    const upload = await fakes.slack.waitFor(
      () => fakes.slack.uploadsTo(DM).find((u) => u.completed && u.filename.endsWith('-errors.csv')),
      5_000,
      'the errors file',
    );
    const rows = csvRows(fakes.slack.uploadedText(upload.fileId));
    expect(rows[0]).toEqual(['row', 'error', 'email', 'nftId']);
    expect(rows).toHaveLength(15);
    expect(rows[1]).toEqual(['3', 'email: must be an email address', 'bad0', 'n']);
    expect(rows[14]).toEqual(['16', 'email: must be an email address', 'bad13', 'n']);
    await viewWhen(fakes.slack, preview.id, (v) => textOf(v.blocks).includes('All the errors are in a CSV file'));
  });

  it('creates wallets: userId, or a new user for an empty one (a blank line or bare commas are no row, but count as one)', async () => {
    await expectWalletsJobRun(running.app, fakes);
  });
});
