import { beforeAll, describe, expect, it } from 'vitest';
import {
  actAs,
  closeModals,
  modal,
  openChannel,
  screenshot,
  send,
  submitModal,
  until,
  useBrowserSandbox,
  type BrowserSandbox,
} from './browser-kit.js';

/*
 * History in the sandbox, in a real browser: links made through the form are found by `/mintlink history` with a
 * word, and a result's Details show its URL to copy. Times show in the acting person's time zone (users.info `tz`),
 * as Slack's client shows `<!date^…>` in its reader's, whatever zone the browser is in.
 */

// Far from UTC and from Alice's zone (Europe/Paris, people.ts), so that a date drawn in the browser's zone or in
// UTC would show another hour than hers.
const BROWSER_TIME_ZONE = 'Asia/Tokyo';
const ALICE_TIME_ZONE = 'Europe/Paris';
const opened = useBrowserSandbox({}, { timezoneId: BROWSER_TIME_ZONE });
let s: BrowserSandbox;
beforeAll(() => {
  s = opened.sandbox;
});

describe('History on the sandbox page', () => {
  it('finds the links made, by NFT, and shows one’s details', async () => {
    const { page, sandbox } = s;
    await actAs(page, 'Alice');
    await openChannel(page, 'general');
    for (const [nft, email] of [
      ['nft-history-1', 'ana@example.com'],
      ['nft-history-2', 'ben@example.com'],
    ] as const) {
      await send(page, `/mintlink link ${nft}`);
      const form = await modal(page, 'Create mint link');
      await form.getByLabel('Recipient email').fill(email);
      await submitModal(page);
      await modal(page, 'Mint link created');
      await closeModals(page);
    }
    const links = await until(() => (sandbox.mint.links.length === 2 ? sandbox.mint.links : undefined), 'two links');

    await send(page, '/mintlink history nft-history-2');
    const history = await modal(page, 'History');
    await history.getByText('ben@example.com').waitFor();
    expect(await history.getByText('ana@example.com').count()).toBe(0);
    // When it was made, in Alice's time zone, the one the From/To labels name: not the browser's, not UTC.
    await history.getByText(`day in ${ALICE_TIME_ZONE}`).first().waitFor();
    const made = history.locator('time[data-ts]').first();
    const seconds = Number(await made.getAttribute('data-ts'));
    const clock = (timeZone: string) =>
      new Intl.DateTimeFormat('en-US', { timeZone, hour: 'numeric', minute: '2-digit' }).format(seconds * 1000);
    expect(await made.textContent()).toContain(`at ${clock(ALICE_TIME_ZONE)}`);
    expect(await made.textContent()).not.toContain(`at ${clock(BROWSER_TIME_ZONE)}`);
    expect(await made.textContent()).not.toContain(`at ${clock('UTC')}`);
    await screenshot(page, 'history');

    await history.locator('button', { hasText: 'Details' }).first().click();
    const details = await modal(page, 'Link');
    await details.getByText(String(links[1]?.url)).first().waitFor();
    await screenshot(page, 'history-details');
    await closeModals(page);
  });

  it('lets an approver approve a pending deletion from its Details, which then shows the approval', async () => {
    const { page, sandbox } = s;
    await actAs(page, 'Alice');
    await openChannel(page, 'general');
    await send(page, '/mintlink delete cus_h9001 cus_h9002');
    const form = await modal(page, 'Request deletion');
    await form.getByLabel('Reason').fill('Asked to be forgotten');
    await submitModal(page);
    await page
      .locator('.modal')
      .getByText(/DR-\w+/)
      .first()
      .waitFor();
    const id = /DR-[\w-]+/.exec((await page.locator('.modal').textContent()) ?? '')?.[0] ?? '';
    expect(id).not.toBe('');
    await closeModals(page);

    await actAs(page, 'Ben');
    await openChannel(page, 'general');
    await send(page, `/mintlink history ${id}`);
    const history = await modal(page, 'History');
    await history.locator('button', { hasText: 'Details' }).first().click();
    const details = await modal(page, 'Deletion request');
    await details.getByRole('button', { name: 'Approve…' }).waitFor();
    await screenshot(page, 'history-details-to-decide');
    await details.getByRole('button', { name: 'Approve…' }).click();
    await modal(page, `Approve ${id}`);
    await submitModal(page);
    // The approval modal closes back to Details, shown again with the approval and without the buttons.
    const decided = await modal(page, 'Deletion request');
    await decided.getByText(/Approved by/).waitFor();
    expect(await decided.getByRole('button', { name: 'Approve…' }).count()).toBe(0);
    await screenshot(page, 'history-details-decided');
    expect(sandbox.mint.requestsTo('delete_customers')).toHaveLength(0); // one approval of two
    await closeModals(page);
  });
});
