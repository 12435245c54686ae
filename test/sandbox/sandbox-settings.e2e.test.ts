import { beforeAll, describe, expect, it } from 'vitest';
import type { Locator } from 'playwright-core';
import {
  actAs,
  inputBlock,
  message,
  modal,
  openApp,
  openChannel,
  screenshot,
  submitModal,
  useBrowserSandbox,
  type BrowserSandbox,
} from './browser-kit.js';

/*
 * Settings administered from App Home, in a real browser: Dan (a settings admin in the sandbox) changes the
 * approvers through the multi-user picker and the user-group picker (whose options the app sends back to a
 * signed block_suggestion), and the quorum; the save is shown, announced in #deletion-approvals, and the
 * form shows the new values when opened again. Alice is no settings admin: her Home has no Settings.
 */

const opened = useBrowserSandbox();
let s: BrowserSandbox;
beforeAll(() => {
  s = opened.sandbox;
});

const chips = (picker: Locator) => picker.locator('.bk-chip-label').allTextContents();

async function openSettings(): Promise<Locator> {
  const { page } = s;
  await openApp(page, 'Home');
  const home = page.locator('.home');
  await home.getByText('you are a settings admin').waitFor();
  await home.getByRole('button', { name: 'Change settings' }).click();
  return modal(page, 'Mintlink settings');
}

describe('settings in the sandbox', () => {
  it('lets a settings admin add an approver and a user group through the pickers, and change the quorum', async () => {
    const { page, sandbox } = s;
    await actAs(page, 'Dan');
    const form = await openSettings();

    // The approvers from the environment, as chips; one more chosen by typing, one removed with its ×.
    const approvers = inputBlock(form, 'Approvers');
    expect(await chips(approvers)).toEqual(['Ben Okafor', 'Chloé Dubois']);
    await approvers.getByRole('combobox').fill('ev');
    await approvers.getByRole('option', { name: 'Eve Novak' }).click();
    await approvers.getByRole('button', { name: 'Remove Chloé Dubois' }).click();
    expect(await chips(approvers)).toEqual(['Ben Okafor', 'Eve Novak']);

    await form.getByLabel('Approvals needed (optional)', { exact: true }).fill('3');

    // The user groups come from the app: opening the menu asks it (min_query_length 0), typing narrows it.
    const groups = inputBlock(form, 'Approver user groups');
    const listsBefore = sandbox.slack.calls.filter((c) => c.method === 'usergroups.list').length;
    await groups.getByRole('combobox').click();
    await groups.getByRole('option', { name: '@support-leads (Support leads)' }).waitFor();
    await groups.getByRole('option', { name: '@deletion-approvers (Deletion approvers)' }).waitFor();
    await groups.getByRole('combobox').pressSequentially('deletion');
    await expect
      .poll(() => groups.getByRole('option').allTextContents())
      .toEqual(['@deletion-approvers (Deletion approvers)']);
    await groups.getByRole('option', { name: '@deletion-approvers (Deletion approvers)' }).click();
    expect(await chips(groups)).toEqual(['@deletion-approvers (Deletion approvers)']);
    // The app read the workspace's groups from the stand-in (once: it keeps them a minute).
    expect(sandbox.slack.calls.filter((c) => c.method === 'usergroups.list').length).toBe(listsBefore + 1);

    // The menu stays open on the groups still to choose, as Slack's does.
    await groups.getByRole('option', { name: '@support-leads (Support leads)' }).waitFor();
    await form.locator('.modal-body').evaluate((body) => body.scrollTo(0, 0));
    await screenshot(page, 'settings');
    await page.keyboard.press('Escape');
    await expect.poll(() => groups.getByRole('option').count()).toBe(0);

    await submitModal(page);
    const saved = await modal(page, 'Mintlink settings');
    await saved.getByText('Saved.').waitFor();
    await saved.getByText('The quorum: 2 approvals → 3 approvals').waitFor();
    await saved
      .getByText(/The deletion approvers: @Ben Okafor, @Chloé Dubois → @Ben Okafor, @Eve Novak, @deletion-approvers/)
      .waitFor();
    await saved.locator('footer button').first().click();
    await page.locator('.modal').waitFor({ state: 'detached' });

    // Home shows the new values and who changed them.
    const home = page.locator('.home');
    await home.getByText('The quorum: 3 approvals').waitFor();
    await home.getByText('Last changed by @Dan Kim').waitFor();

    // The change is announced in the approval channel, old and new.
    await openChannel(page, 'deletion-approvals');
    const announcement = message(page, "changed Mintlink's settings");
    await announcement.getByText('the quorum from 2 approvals to 3 approvals').waitFor();
    expect(await announcement.textContent()).toContain(
      'the deletion approvers from @Ben Okafor, @Chloé Dubois to @Ben Okafor, @Eve Novak, @deletion-approvers',
    );
    expect(await announcement.textContent()).toContain('@Dan Kim');

    // Opened again, the form shows the saved values: chosen people and groups as chips (initial_users, initial_options).
    const again = await openSettings();
    expect(await chips(inputBlock(again, 'Approvers'))).toEqual(['Ben Okafor', 'Eve Novak']);
    expect(await chips(inputBlock(again, 'Approver user groups'))).toEqual([
      '@deletion-approvers (Deletion approvers)',
    ]);
    expect(await again.getByLabel('Approvals needed (optional)', { exact: true }).inputValue()).toBe('3');

    // Slack asks for options only of a select with an external data source: asked for another input, the
    // stand-in refuses and the app is not asked.
    const viewId = await again.getAttribute('data-view-id');
    const quorumBlock = await inputBlock(again, 'Approvals needed').first().getAttribute('data-block-id');
    const refused = await page.evaluate(
      async ({ viewId, blockId }) => {
        const response = await fetch('/api/act', {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-sandbox': '1' },
          body: JSON.stringify({
            as: 'U0DAN0001',
            type: 'suggest',
            viewId,
            blockId,
            actionId: 'value',
            value: '',
            values: {},
          }),
        });
        return (await response.json()) as { ok: boolean; error?: string };
      },
      { viewId, blockId: quorumBlock },
    );
    expect(refused).toEqual({ ok: false, error: 'no select with an external data source there' });
  });

  it('shows no Settings section on the Home of someone who is not a settings admin', async () => {
    const { page } = s;
    await actAs(page, 'Alice');
    await openApp(page, 'Home');
    const home = page.locator('.home');
    await home.getByRole('button').first().waitFor();
    expect(await home.textContent()).not.toContain('settings admin');
    expect(await home.getByRole('button', { name: /settings/i }).count()).toBe(0);
  });
});
