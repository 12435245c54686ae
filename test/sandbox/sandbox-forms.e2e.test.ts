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
  person,
  screenshot,
  send,
  setDateTime,
  submitModal,
  until,
  type BrowserSandbox,
} from './browser-kit.js';

/*
 * The sandbox in a real browser: what a person does on the page reaches the real app (signed, as Slack sends
 * it), and what the app answers is drawn; each flow is checked on the page and at the mock Mint service.
 */

const opened = useBrowserSandbox();
let s: BrowserSandbox;
beforeAll(() => {
  s = opened.sandbox;
});

describe('the sandbox page', () => {
  it('creates a mint link after one inline error is fixed, and shows its URL', async () => {
    const { page, sandbox } = s;
    await actAs(page, 'Alice');
    await openChannel(page, 'general');
    await send(page, '/mintlink link');
    const form = await modal(page, 'Create mint link');
    await form.getByLabel('NFT ID').fill('nft-demo-42');
    await form.getByLabel('Recipient email').fill('ana@example.com');
    await form.getByLabel('Customer IDs').fill('cus_1001, cus_1002\ncus_1003');
    await setDateTime(inputBlock(form, 'Claim starts'), '2030-01-01', '09:00');
    await setDateTime(inputBlock(form, 'Claim ends'), '2020-01-01', '09:00');
    await submitModal(page);

    const claimEnd = inputBlock(form, 'Claim ends');
    await expect.poll(() => claimEnd.locator('.bk-error').textContent()).toMatch(/must end after it starts/);
    // The values typed stay in the form, as Slack keeps them.
    expect(await form.getByLabel('NFT ID').inputValue()).toBe('nft-demo-42');
    expect(sandbox.mint.requestsTo('create_link')).toHaveLength(0);
    await screenshot(page, 'link-inline-error');

    await setDateTime(claimEnd, '2031-06-30', '18:00');
    await submitModal(page);
    const created = await modal(page, 'Mint link created');
    const link = await until(() => sandbox.mint.links[0], 'the created link');
    await created.getByText(String(link.url)).first().waitFor();
    // Each customer ID in full, as it was sent.
    await created.getByText(/Customer IDs \(3\): cus_1001, cus_1002, cus_1003/).waitFor();
    await screenshot(page, 'link-created');
    const [request] = sandbox.mint.requestsTo('create_link');
    expect(request?.body).toMatchObject({
      nftId: 'nft-demo-42',
      email: 'ana@example.com',
      customerId: ['cus_1001', 'cus_1002', 'cus_1003'],
    });
    expect(sandbox.mint.requestsTo('create_link')).toHaveLength(1);

    // The result also arrives as a DM from the app.
    await created.locator('footer button', { hasText: 'Done' }).click();
    await page.locator('.modal').waitFor({ state: 'detached' });
    await openApp(page, 'Messages');
    await message(page, String(link.url)).waitFor();
  });

  it('creates a wallet for a new user from the Create wallet shortcut', async () => {
    const { page, sandbox } = s;
    await openChannel(page, 'general');
    await page.click('#shortcuts-button');
    await page.getByRole('menuitem', { name: /Create wallet/ }).click();
    await modal(page, 'Create wallet');
    await submitModal(page);
    await modal(page, 'Wallet created');
    expect(sandbox.mint.requestsTo('create_wallet')).toHaveLength(1);
    expect(sandbox.mint.wallets.at(-1)?.createdUser).toBe(true);
    await closeModals(page);
  });

  it('pages through the templates with Next and Previous, and switches the order', async () => {
    const { page, sandbox } = s;
    await openChannel(page, 'general');
    await send(page, '/mintlink templates demo-contract 5');
    const pageMessage = message(page, 'Templates of demo-contract');
    await pageMessage.getByText('1–5 of 123').waitFor();
    await expect.poll(() => pageMessage.locator('.bk-text').first().textContent()).toContain('#123');
    await screenshot(page, 'templates-page');

    await pageMessage.getByRole('button', { name: /Next/ }).click();
    await pageMessage.getByText('6–10 of 123').waitFor();
    await pageMessage.getByRole('button', { name: /Previous/ }).click();
    await pageMessage.getByText('1–5 of 123').waitFor();
    await pageMessage.getByRole('button', { name: /Ascending/ }).click();
    await pageMessage.getByText(/ascending order/).waitFor();
    await expect.poll(() => pageMessage.locator('.bk-text').first().textContent()).toContain('#001');

    const queries = sandbox.mint.requestsTo('list_templates').map((r) => new URL(r.url, 'http://x').searchParams);
    expect(queries.map((q) => [q.get('offset'), q.get('orderBy')])).toEqual([
      ['0', 'desc'],
      ['5', 'desc'],
      ['0', 'desc'],
      ['0', 'asc'],
    ]);
    // One message, replaced in place: the page is not posted again.
    expect(await page.locator('#content .message', { hasText: 'Templates of demo-contract' }).count()).toBe(1);
  });

  it('posts a template page in the conversation picked in the Browse templates form (a conversation select)', async () => {
    const { page } = s;
    await actAs(page, 'Alice');
    await openChannel(page, 'general');
    await page.click('#shortcuts-button');
    await page.getByRole('menuitem', { name: /Browse templates/ }).click();
    const form = await modal(page, 'Browse templates');
    // default_to_current_conversation: the channel the form was opened from.
    expect(await form.getByLabel('Post the list in').inputValue()).toBe('C0CHANNEL1');
    await form.getByLabel('Post the list in').selectOption({ label: '# deletion-approvals' });
    await form.getByLabel('Contract ID').fill('demo-contract');
    await submitModal(page);
    await (
      await modal(page, 'Browse templates')
    )
      .getByText(/Posted the templates of demo-contract in #deletion-approvals/)
      .waitFor();
    await closeModals(page);
    await openChannel(page, 'deletion-approvals');
    await message(page, 'Templates of demo-contract')
      .getByText(/of 123/)
      .waitFor();
  });

  it('shows App Home with its buttons and the person’s recent activity', async () => {
    const { page } = s;
    await actAs(page, 'Alice');
    await openApp(page, 'Home');
    const home = page.locator('.home');
    await home.getByText('Your recent activity').waitFor();
    await home
      .getByText(/link\.create|mint link/i)
      .first()
      .waitFor();
    await screenshot(page, 'app-home');
    await home.getByRole('button', { name: 'Create wallet' }).click();
    await modal(page, 'Create wallet');
    await closeModals(page);
  });

  it('opens the deletion form from a message’s More actions menu, prefilled with its customer IDs', async () => {
    const { page, sandbox } = s;
    await actAs(page, 'Alice');
    await openChannel(page, 'general');
    const ticket = message(page, 'Support ticket #4411');
    await ticket.hover();
    await ticket.getByRole('button', { name: 'More actions' }).click();
    await page.getByRole('menuitem', { name: /Request deletion/ }).click();
    const form = await modal(page, 'Request deletion');
    const ids = form.getByLabel('Customer IDs');
    await expect.poll(() => ids.inputValue()).toMatch(/cus_1001[\s,]+cus_1002/);
    await closeModals(page);
    expect(sandbox.mint.requestsTo('delete_customers')).toHaveLength(0);
  });

  it('exports the audit log for an audit viewer, and refuses anyone else', async () => {
    const { page, sandbox } = s;
    await actAs(page, 'Eve');
    await openChannel(page, 'general');
    await send(page, '/mintlink audit 7');
    await message(page, /not allowed|may export|audit viewers/i)
      .getByText('Only visible to you')
      .waitFor();
    expect(sandbox.slack.uploadsTo(`D${person('Eve').id.slice(1)}`)).toHaveLength(0);

    await actAs(page, 'Dan');
    await openChannel(page, 'general');
    await send(page, '/mintlink audit 7');
    await openApp(page, 'Messages');
    const file = page.locator('#content .file-card').last();
    await file.waitFor();
    const download = page.waitForEvent('download');
    await file.getByRole('link', { name: 'Download' }).click();
    const csv = await (await download).createReadStream().then(async (stream) => {
      const chunks: Buffer[] = [];
      for await (const chunk of stream) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks).toString('utf8');
    });
    expect(csv.split('\n')[0]).toMatch(/^when,who,origin/);
    expect(csv).toContain('link.create');
  });

  it('exports one person’s actions from the Home form (a user select)', async () => {
    const { page, sandbox } = s;
    await actAs(page, 'Dan');
    await openApp(page, 'Home');
    await page.locator('.home').getByRole('button', { name: 'Export audit log' }).click();
    const form = await modal(page, 'Export audit log');
    await form.getByLabel('Only the actions of').selectOption({ label: 'Alice Martin' });
    const before = sandbox.slack.uploadsTo('D0DAN0001').length;
    await submitModal(page);
    await until(() => sandbox.slack.uploadsTo('D0DAN0001').length === before + 1, 'the export');
    await closeModals(page);
    const upload = sandbox.slack.uploadsTo('D0DAN0001').at(-1);
    const rows = sandbox.slack.uploadedText(String(upload?.fileId)).trim().split('\n').slice(1);
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.every((row) => row.includes('U0ALICE01'))).toBe(true);
  });

  it('runs a Workflow Builder step with inputs typed on the page and shows its outputs', async () => {
    const { page, sandbox } = s;
    await actAs(page, 'Alice');
    await page.locator('#tool-list button').click();
    await page.locator('.step-card', { hasText: 'Create mint link' }).click();
    await page.getByLabel('NFT ID').fill('nft-workflow-7');
    expect(await page.getByLabel('Wallet').locator('option:checked').textContent()).toBe('Custodial');
    expect(await page.getByLabel('Link type').locator('option:checked').textContent()).toBe('General');
    await page.getByLabel('Customer IDs').fill('cus_w1, cus_w2');
    await page.getByRole('button', { name: /Run this step/ }).click();
    const run = page.locator('.run').first();
    await run.locator('.run-state', { hasText: 'Completed' }).waitFor();
    const link = sandbox.mint.links.at(-1);
    expect(link).toMatchObject({ nftId: 'nft-workflow-7', customerId: ['cus_w1', 'cus_w2'] });
    await run.getByText(String(link?.url)).first().waitFor();
    await screenshot(page, 'workflow-step');

    // A wrong input fails the step, naming it; nothing is sent.
    const before = sandbox.mint.requestsTo('create_link').length;
    await page.getByLabel('NFT ID').fill('nft-workflow-8');
    await page.getByLabel('Max checkout quantity').fill('0');
    await page.getByRole('button', { name: /Run this step/ }).click();
    await page.locator('.run').first().locator('.run-state', { hasText: 'Failed' }).waitFor();
    await page
      .locator('.run')
      .first()
      .getByText(/Max checkout quantity/)
      .waitFor();
    expect(sandbox.mint.requestsTo('create_link')).toHaveLength(before);
  });

  it("chooses a step's default as Workflow Builder does: the List NFT templates order is descending, as its hint says", async () => {
    const { page, sandbox } = s;
    await actAs(page, 'Alice');
    await page.locator('#tool-list button').click();
    await page.locator('.step-card', { hasText: 'List NFT templates' }).click();
    expect(await page.getByLabel('Order').inputValue()).toBe('desc');
    await page.getByText('The order the Mint service lists them in (default descending)').waitFor();
    // Workflow Builder shows the manifest's choice titles, not the values the app is sent.
    expect(await page.getByLabel('Order').locator('option:checked').textContent()).toBe('Descending');
    const before = sandbox.mint.requestsTo('list_templates').length;
    await page.getByLabel('Contract ID').fill('demo-contract');
    await page.getByRole('button', { name: /Run this step/ }).click();
    await page.locator('.run').first().locator('.run-state', { hasText: 'Completed' }).waitFor();
    const [sent] = sandbox.mint.requestsTo('list_templates').slice(before);
    expect(new URL(String(sent?.url), 'http://x').searchParams.get('orderBy')).toBe('desc');
  });

  it('shows a broken Slack rule on the page: a late ack, an expired trigger_id, Block Kit over the limits', async () => {
    const { page, sandbox } = s;
    await actAs(page, 'Alice');
    await openChannel(page, 'general');
    // The app frozen until Slack gave up on the ack (3 s): the trigger_id, as old, is stale when the app uses it.
    process.kill(sandbox.appPid, 'SIGSTOP');
    try {
      await send(page, '/mintlink link');
      await page.locator('.toast', { hasText: 'failed with the error "operation_timeout"' }).waitFor();
    } finally {
      process.kill(sandbox.appPid, 'SIGCONT');
    }
    const panel = page.locator('#violations');
    await panel.getByText(/3 s ack/).waitFor();
    await panel.getByText(/expired_trigger_id/).waitFor();
    expect(await page.locator('.modal').count()).toBe(0);

    // An app that posts 51 blocks: Slack refuses the message (invalid_blocks), and the page says why.
    const answer = await fetch(`${sandbox.slack.apiUrl}chat.postMessage`, {
      method: 'POST',
      headers: { authorization: `Bearer ${sandbox.slack.botToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        channel: 'C0CHANNEL1',
        text: 'too long',
        blocks: Array.from({ length: 51 }, () => ({ type: 'divider' })),
      }),
    });
    expect(await answer.json()).toMatchObject({ ok: false, error: 'invalid_blocks' });
    await panel.getByText(/Block Kit limits/).waitFor();
    await panel.getByText(/at most 50 items/).waitFor();
    // The panel sits between the conversation and the composer, never over a message (the newest included).
    await expect
      .poll(async () => {
        const [content, shown] = [await page.locator('#content').boundingBox(), await panel.boundingBox()];
        return content && shown ? content.y + content.height <= shown.y : false;
      })
      .toBe(true);
    await screenshot(page, 'rule-violations');
  });
});
