/*
 * The Setup checklist over each transport, end to end: a settings admin's Home shows what fails, and Check again
 * (a click on Home) checks again. Every behaviour of the checklist is in setup-checklist.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { useFakes } from '../../kit/fakes.js';
import type { RunningApp } from '../../kit/running-app.js';
import { SettingsFlow } from '../../kit/settings-flow.js';
import { expectNoSecretsLeaked, textOf } from '../../kit/slack-checks.js';
import { SETUP_CHECKLIST } from '../../../src/capabilities/setup-checklist/actions.js';

const APPROVAL = 'C0APPROVE1';
const ADMIN = 'U0DAN0001'; // a settings admin (SETTINGS_ADMINS)
const ENV = { APPROVAL_CHANNEL_ID: APPROVAL, DELETION_APPROVERS: 'U0BEN0001,U0CHLOE01', SETTINGS_ADMINS: ADMIN };

describe.each(['http', 'socket'] as const)('the Setup checklist on App Home (%s mode)', (mode) => {
  const fakes = useFakes();
  const settings = new SettingsFlow(fakes);
  let app: RunningApp;
  /** Moves the app's clock past the cooldown of Check again (the app runs in this process: Date.now is shared). */
  let shifted = 0;

  beforeAll(async () => {
    const realNow = Date.now.bind(Date);
    vi.spyOn(Date, 'now').mockImplementation(() => realNow() + shifted);
    fakes.slack.channelsWithoutBot.add(APPROVAL);
    app = await fakes.startApp(mode, { env: ENV });
  });
  afterAll(async () => {
    fakes.slack.channelsWithoutBot.delete(APPROVAL);
    expectNoSecretsLeaked(fakes.slack, app);
    await app?.stop();
    vi.restoreAllMocks();
  });

  it('shows a settings admin what fails, and a click on Check again after the fix shows it passing', async () => {
    await settings.home(app, ADMIN);
    // The checks run in the background: the next publish of the admin's Home shows them.
    const failing = await fakes.slack.waitFor(
      () => textOf(fakes.slack.view(ADMIN)).includes('Setup checklist') && fakes.slack.view(ADMIN),
      5_000,
      'the checklist on Home',
    );
    expect(textOf(failing)).toContain('the app is not a member');
    fakes.slack.channelsWithoutBot.delete(APPROVAL);
    shifted += 31_000;
    await app.clickOnHome(failing, SETUP_CHECKLIST.buttons.checkAgain.actionId, ADMIN);
    await fakes.slack.waitFor(
      () => !textOf(fakes.slack.view(ADMIN)).includes('the app is not a member'),
      10_000,
      'the approval channel item passing',
    );
  });
});
