import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  actAs,
  useBrowserSandbox,
  closeModals,
  inputBlock,
  message,
  modal,
  openApp,
  openChannel,
  screenshot,
  send,
  submitModal,
  until,
  type BrowserSandbox,
} from './browser-kit.js';

/*
 * Deletions decided by several people, and bulk jobs, in a real browser against the sandbox: each person acts
 * through the switcher, and the mock Mint service says what was really sent.
 */

const ALICE_DM = 'D0ALICE01';
// The bulk jobs at a quicker pace than the app's (progress every 200 ms, not 2 s): the same messages, sooner.
const opened = useBrowserSandbox({ bulkPaceMs: 200 });
let s: BrowserSandbox;
beforeAll(() => {
  s = opened.sandbox;
});

async function requestDeletion(ids: string, reason: string): Promise<string> {
  const { page } = s;
  await actAs(page, 'Alice');
  await openChannel(page, 'general');
  await send(page, `/mintlink delete ${ids}`);
  const form = await modal(page, 'Request deletion');
  await form.getByLabel('Reason').fill(reason);
  await submitModal(page);
  await page
    .locator('.modal')
    .getByText(/DR-\w+/)
    .first()
    .waitFor();
  const id = /DR-[\w-]+/.exec((await page.locator('.modal').textContent()) ?? '')?.[0];
  if (!id) throw new Error('no request id shown');
  await closeModals(page);
  return id;
}

/** An approver opens the request in the approval channel and confirms. */
async function decide(first: string, requestId: string, button: 'Approve…' | 'Reject…', reason?: string) {
  const { page } = s;
  await actAs(page, first);
  await openChannel(page, 'deletion-approvals');
  const request = message(page, requestId);
  await request.getByRole('button', { name: button }).click();
  const form = await modal(page, `${button === 'Approve…' ? 'Approve' : 'Reject'} ${requestId}`);
  if (reason) await form.getByLabel(/Why/).fill(reason);
  await submitModal(page);
}

describe('deletions in the sandbox', () => {
  it('runs a deletion once two other people approved it: one PATCH, and the request shows where it stands', async () => {
    const { page, sandbox } = s;
    const id = await requestDeletion('cus_1001 cus_1002', 'Ticket #4411: the customers asked');
    await decide('Ben', id, 'Approve…');
    await message(page, id)
      .getByText(/1 of 2 approvals/)
      .waitFor();
    expect(sandbox.mint.requestsTo('delete_customers')).toHaveLength(0);
    await closeModals(page);
    await screenshot(page, 'approval-mid-quorum');

    await decide('Chloé', id, 'Approve…');
    await until(() => sandbox.mint.requestsTo('delete_customers').length === 1, 'the PATCH');
    await message(page, id)
      .getByText(/deleted|done/i)
      .first()
      .waitFor();
    expect(sandbox.mint.requestsTo('delete_customers')[0]?.body).toEqual(['cus_1001', 'cus_1002']);

    // The requester hears of it in the DM.
    await actAs(page, 'Alice');
    await openApp(page, 'Messages');
    await message(page, id).waitFor();
  });

  it('sends nothing when an approver rejects, and says who and why', async () => {
    const { page, sandbox } = s;
    const id = await requestDeletion('cus_2001', 'Duplicate account');
    await decide('Ben', id, 'Reject…', 'Still has open orders');
    const request = message(page, id);
    await request
      .getByText(/Rejected/i)
      .first()
      .waitFor();
    await request.getByText(/Still has open orders/).waitFor();
    expect(
      sandbox.mint.requestsTo('delete_customers').filter((r) => JSON.stringify(r.body).includes('cus_2001')),
    ).toEqual([]);
  });

  it('puts a long list of IDs in the request’s thread, where people can reply', async () => {
    const { page } = s;
    const ids = Array.from({ length: 25 }, (_, i) => `cus_t${String(i + 1).padStart(2, '0')}`);
    const id = await requestDeletion(ids.join(' '), 'Closed test accounts');
    await actAs(page, 'Ben');
    await openChannel(page, 'deletion-approvals');
    const request = message(page, id);
    await request.getByRole('button', { name: /repl/ }).click();
    const thread = page.locator('#thread');
    await thread.getByText('cus_t25').first().waitFor();
    await thread.getByLabel('Reply in thread').fill('Checking these now');
    await thread.getByLabel('Reply in thread').press('Enter');
    await thread.locator('.message', { hasText: 'Checking these now' }).getByText('Ben Okafor').waitFor();
    await thread.getByRole('button', { name: 'Close thread' }).click();
  });

  it('tells a person without approval rights so, only them, and changes nothing', async () => {
    const { page } = s;
    const id = await requestDeletion('cus_2002', 'Closed store');
    await actAs(page, 'Eve');
    await openChannel(page, 'deletion-approvals');
    await message(page, id).getByRole('button', { name: 'Approve…' }).click();
    await message(page, /not an approver|cannot approve|only .*approvers/i)
      .getByText('Only visible to you')
      .waitFor();
    await actAs(page, 'Ben');
    await openChannel(page, 'deletion-approvals');
    expect(await message(page, id).textContent()).not.toMatch(/1 of 2/);
  });

  it('links a request made from a message back to it, on the page itself (never slack.com)', async () => {
    const { page, sandbox } = s;
    await actAs(page, 'Eve');
    await openChannel(page, 'general');
    await send(page, 'Ticket #5150: please close cus_3001');
    await actAs(page, 'Alice');
    const ticket = message(page, 'Ticket #5150');
    await ticket.hover();
    await ticket.getByRole('button', { name: 'More actions' }).click();
    await page.getByRole('menuitem', { name: /Request deletion/ }).click();
    const form = await modal(page, 'Request deletion');
    await form.getByLabel('Reason').fill('Ticket #5150');
    await submitModal(page);
    const id = /DR-[\w-]+/.exec(
      (await page
        .locator('.modal')
        .getByText(/DR-\w+/)
        .first()
        .textContent()) ?? '',
    )?.[0];
    await closeModals(page);

    await openChannel(page, 'deletion-approvals');
    const context = message(page, String(id)).getByRole('link', { name: 'the message it was asked from' });
    const href = (await context.getAttribute('href')) ?? '';
    expect(href).toMatch(/^\/archives\/C0CHANNEL1\/p\d{16}$/);
    await context.click();
    await page.locator('#main-header h1', { hasText: '# general' }).waitFor();
    await page.locator('#content .message.focused', { hasText: 'Ticket #5150' }).waitFor();
    expect(new URL(page.url()).pathname).toBe(href);

    // Opened as an address (a new tab, a reload), the link shows the same message.
    await page.goto(`${sandbox.url}${href.slice(1)}`);
    await page.waitForSelector('body[data-ready]');
    await page.locator('#content .message.focused', { hasText: 'Ticket #5150' }).waitFor();
    await page.goto(sandbox.url);
    await page.waitForSelector('body[data-ready]');
  });
});

describe('bulk jobs in the sandbox', () => {
  it('checks pasted CSV, shows the bad row in the preview, then runs the good rows and sends the results file', async () => {
    const { page, sandbox } = s;
    await actAs(page, 'Alice');
    await openChannel(page, 'general');
    await send(page, '/mintlink bulk links');
    const form = await modal(page, 'Bulk create');
    await form
      .getByLabel('Or paste CSV text')
      .fill('email,customerId\nana@example.com,\nnot-an-email,\nbo@example.com,cus_9');
    await inputBlock(form, 'NFT ID').locator('input').fill('nft-bulk-1');
    await submitModal(page);
    const preview = await modal(page, 'Bulk create: check');
    await preview.getByText(/2 mint links ready/).waitFor();
    await preview.getByText(/Row 3/).waitFor();
    expect(sandbox.mint.requestsTo('create_link')).toHaveLength(0);
    await submitModal(page); // Start
    await (await modal(page, 'Bulk create')).getByText(/started/).waitFor();
    await closeModals(page);

    await openApp(page, 'Messages');
    const results = page.locator('#content .file-card').last();
    await results.waitFor({ timeout: 20_000 });
    expect(await results.textContent()).toMatch(/\.csv/);
    const bodies = sandbox.mint.requestsTo('create_link').map((r) => r.body as Record<string, unknown>);
    expect(bodies.map((b) => b.email).sort()).toEqual(['ana@example.com', 'bo@example.com']);
    await message(page, /finished|2 created/).waitFor();
  });

  it('says in the file box when a file is larger than the sandbox takes, and uploads nothing', async () => {
    const { page, sandbox } = s;
    const file = join(tmpdir(), `sandbox-big-${process.pid}.csv`);
    writeFileSync(file, `email\n${'x@example.com\n'.repeat(900_000)}`); // about 12 MB
    const filesBefore = sandbox.slack.hostedFiles.size;
    await actAs(page, 'Alice');
    await openApp(page, 'Home');
    await page.locator('.home').getByRole('button', { name: 'Bulk create' }).click();
    const form = await modal(page, 'Bulk create');
    await form.locator('input[type=file]').setInputFiles(file);
    await form
      .getByRole('alert')
      .getByText(/sandbox-big-.*\.csv is larger than the sandbox takes \(10 MB\)/)
      .waitFor();
    expect(sandbox.slack.hostedFiles.size).toBe(filesBefore);
    await closeModals(page);
  });

  it('runs a job from a CSV file chosen on disk, with its progress updated in place', async () => {
    const { page, sandbox } = s;
    const rows = Array.from({ length: 60 }, (_, i) => `user${i + 1}@example.com`);
    const file = join(tmpdir(), `sandbox-bulk-${process.pid}.csv`);
    writeFileSync(file, `email\n${rows.join('\n')}\nbroken-address\n`);
    sandbox.mint.latencyMs = 300; // slow enough to see the job move
    const before = sandbox.mint.requestsTo('create_link').length;
    const uploadsBefore = sandbox.slack.uploadsTo(ALICE_DM).length;
    await actAs(page, 'Alice');
    await openApp(page, 'Home');
    await page.locator('.home').getByRole('button', { name: 'Bulk create' }).click();
    const form = await modal(page, 'Bulk create');
    await form.locator('input[type=file]').setInputFiles(file);
    await form.getByText(/sandbox-bulk-.*\.csv/).waitFor();
    await inputBlock(form, 'NFT ID').locator('input').fill('nft-bulk-2');
    await submitModal(page);
    const preview = await modal(page, 'Bulk create: check');
    await preview.getByText(/60 mint links ready/).waitFor();
    await preview.getByText(/Row 62/).waitFor();
    await submitModal(page);
    await (await modal(page, 'Bulk create')).getByText(/started/).waitFor();
    await closeModals(page);

    await openApp(page, 'Messages');
    const progress = message(page, /Bulk job/);
    // Updated in place while rows are still being sent.
    await progress.locator('.edited').waitFor({ timeout: 15_000 });
    await progress.getByText(/· [1-9]\d* left/).waitFor();
    await screenshot(page, 'bulk-progress');
    // Seen moving and pictured: the rows left go at the service's full speed.
    sandbox.mint.latencyMs = 0;
    await until(() => sandbox.mint.requestsTo('create_link').length - before === 60, '60 links', 30_000);
    await until(() => sandbox.slack.uploadsTo(ALICE_DM).length === uploadsBefore + 1, 'the results file', 20_000);
    const results = page.locator('#content .file-card').nth(uploadsBefore);
    await results
      .getByText(/results/i)
      .first()
      .waitFor();
    const download = page.waitForEvent('download');
    await results.getByRole('link', { name: 'Download' }).click();
    const stream = await (await download).createReadStream();
    const chunks: Buffer[] = [];
    for await (const chunk of stream) chunks.push(chunk as Buffer);
    const csv = Buffer.concat(chunks).toString('utf8');
    expect(csv.split('\n')[0]).toMatch(/outcome/);
    expect(csv.match(/,created,/g)).toHaveLength(60);
    expect(csv).toMatch(/broken-address.*not sent \(error in the file\)/);
  });

  it('retries a job’s failed rows: the preview lists the maybe-created row apart, unticked, and only the failed rows go again', async () => {
    const { page, sandbox } = s;
    const emails = ['ada@example.com', 'ben@example.com', 'cy@example.com', 'dee@example.com', 'eve@example.com'];
    const before = sandbox.mint.requestsTo('create_link').length;
    await actAs(page, 'Alice');
    await openChannel(page, 'general');
    await send(page, '/mintlink bulk links');
    const form = await modal(page, 'Bulk create');
    await form.getByLabel('Or paste CSV text').fill(`email\n${emails.join('\n')}`);
    await inputBlock(form, 'NFT ID').locator('input').fill('nft-retry-1');
    await submitModal(page);
    await (await modal(page, 'Bulk create: check')).getByText(/5 mint links ready/).waitFor();
    // Two rows refused by the service, one whose outcome is unknown (a 500: it may have been created).
    sandbox.mint.failNext('create_link', { mode: 'status', status: 400, body: { message: 'nftId unknown' } }, 2);
    sandbox.mint.failNext('create_link', { mode: 'status', status: 500 }, 1);
    await submitModal(page); // Start
    const started = (await modal(page, 'Bulk create')).getByText(/started/);
    const jobId = /BK-[A-Z0-9]+/.exec((await started.textContent()) ?? '')?.[0] ?? '';
    await closeModals(page);

    await openApp(page, 'Messages');
    const ended = message(page, new RegExp(`Bulk job ${jobId}[\\s\\S]*2 failed · 1 maybe created`));
    await ended.getByRole('button', { name: 'Retry failed rows' }).click({ timeout: 20_000 });
    const preview = await modal(page, 'Bulk create: check');
    await preview.getByText(/2 mint links ready to create/).waitFor();
    await preview.getByText(/1 maybe created/).waitFor();
    expect(await preview.getByRole('checkbox').isChecked()).toBe(false);
    await screenshot(page, 'bulk-retry-preview');
    const sentBefore = sandbox.mint.requestsTo('create_link').length;
    expect(sentBefore - before).toBe(5);
    await submitModal(page); // Start, the maybe-created row left out
    await (await modal(page, 'Bulk create')).getByText(/started/).waitFor();
    await closeModals(page);
    await until(
      () => sandbox.mint.requestsTo('create_link').length === sentBefore + 2,
      'the 2 failed rows again',
      20_000,
    );
    await message(page, /Its failed rows were retried as/).waitFor({ timeout: 10_000 });
    const sent = sandbox.mint.requestsTo('create_link').map((r) => (r.body as { email?: string }).email);
    const counted = new Map<string, number>();
    for (const email of sent.slice(before)) counted.set(String(email), (counted.get(String(email)) ?? 0) + 1);
    expect([...counted.values()].sort()).toEqual([1, 1, 1, 2, 2]); // the maybe-created row once, the refused twice
  }, 60_000);

  it('sends a sample CSV per kind to the DM from the form, which says where they went and keeps what was typed', async () => {
    const { page, sandbox } = s;
    // Only the samples are counted: a results file of an earlier test's job may still land in the same DM.
    const samples = () =>
      sandbox.slack.uploadsTo(ALICE_DM).filter((u) => u.filename.startsWith('mintlink-sample-')).length;
    const samplesBefore = samples();
    await actAs(page, 'Alice');
    await openChannel(page, 'general');
    await send(page, '/mintlink bulk links');
    const form = await modal(page, 'Bulk create');
    await inputBlock(form, 'NFT ID').locator('input').fill('nft-kept');
    await form.getByRole('button', { name: 'Download a sample CSV' }).click();
    await form.getByText(/Two sample CSV files, one for mint links and one for wallets, are in your DM/).waitFor();
    expect(await inputBlock(form, 'NFT ID').locator('input').inputValue()).toBe('nft-kept');
    await screenshot(page, 'bulk-sample-csv');
    // The form says so once both uploads were completed: they are there already.
    expect(samples()).toBe(samplesBefore + 2);
    await closeModals(page);
    await openApp(page, 'Messages');
    await page.locator('#content .file-card', { hasText: 'mintlink-sample-wallets.csv' }).waitFor();
  });
});
