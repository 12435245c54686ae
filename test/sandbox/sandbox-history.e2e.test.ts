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
 * word, and a result's Details show its URL to copy. Times show in the browser's time zone, as Slack's client shows
 * `<!date^…>` in the reader's.
 */

// A time zone far from UTC, so that a date shown in UTC would show another hour.
const BROWSER_TIME_ZONE = 'Asia/Tokyo';
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
    // When it was made, in the browser's time zone (Tokyo), not in UTC.
    const made = history.locator('time[data-ts]').first();
    const seconds = Number(await made.getAttribute('data-ts'));
    const clock = (timeZone: string) =>
      new Intl.DateTimeFormat('en-US', { timeZone, hour: 'numeric', minute: '2-digit' }).format(seconds * 1000);
    expect(await made.textContent()).toContain(`at ${clock(BROWSER_TIME_ZONE)}`);
    expect(await made.textContent()).not.toContain(`at ${clock('UTC')}`);
    await screenshot(page, 'history');

    await history.locator('button', { hasText: 'Details' }).first().click();
    const details = await modal(page, 'Link');
    await details.getByText(String(links[1]?.url)).first().waitFor();
    await screenshot(page, 'history-details');
    await closeModals(page);
  });
});
