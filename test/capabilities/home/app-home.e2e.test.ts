/*
 * App Home over each transport, end to end: the app_home_opened event, the publish, and its buttons opening the
 * forms. Every behaviour of Home is in app-home.test.ts and home-screens.test.ts.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DELETIONS } from '../../../src/capabilities/deletions/actions.js';
import { TEST_MINT_API_KEY, TEST_SIGNING_SECRET } from '../../kit/app-process.js';
import type { RunningApp } from '../../kit/running-app.js';
import { viewProblems } from '../../kit/block-kit-limits.js';
import { useFakes } from '../../kit/fakes.js';
import { expectNoRejectedSlackCalls, textOf } from '../../kit/slack-checks.js';
import { WALLETS } from '../../../src/capabilities/wallets/actions.js';
import { TEMPLATES } from '../../../src/capabilities/templates/actions.js';
import { LINKS } from '../../../src/capabilities/links/actions.js';

const APPROVAL = 'C0APPROVE';
const ALICE = 'U0ALICE01'; // plain user, asks for deletions
const BOB = 'U0APPROV1'; // approver

describe.each(['http', 'socket'] as const)('App Home (%s mode)', (mode) => {
  const fakes = useFakes();
  let app: RunningApp;

  beforeAll(async () => {
    app = await fakes.startApp(mode, { env: { APPROVAL_CHANNEL_ID: APPROVAL, DELETION_APPROVERS: BOB } });
  });
  afterAll(async () => app?.stop());
  afterEach(() => expectNoRejectedSlackCalls(fakes.slack));

  /** The user opens their Home tab; resolves with the view the app published. */
  /**
   * Opens `user`'s Home and returns it once published, `showing` a text when given: a refresh started by an
   * earlier change may publish first, built before what the test just did.
   */
  async function openHome(user: string, showing?: string) {
    const published = fakes.slack.callsTo('views.publish').filter((c) => c.params.user_id === user).length;
    await app.event({ type: 'app_home_opened', user, channel: `D${user.slice(1)}`, tab: 'home' });
    await fakes.slack.waitFor(
      () => fakes.slack.callsTo('views.publish').filter((c) => c.params.user_id === user).length > published,
      5_000,
      `the Home of ${user}`,
    );
    if (showing)
      await fakes.slack.waitFor(
        () => textOf(fakes.slack.view(user)).includes(showing),
        5_000,
        `the Home of ${user} showing ${showing}`,
      );
    return fakes.slack.view(user);
  }

  it('shows a plain user the flows, their activity and the status, but no approvals', async () => {
    const home = await openHome(ALICE);
    expect(viewProblems(home)).toEqual([]);
    const text = textOf(home);
    for (const label of ['Create mint link', 'Create wallet', 'Request deletion', 'Browse templates'])
      expect(text).toContain(label);
    expect(text).not.toContain('Waiting for your approval');
    expect(text).toContain('*Your recent activity*');
    // How the app reaches Slack means nothing to its users: the status says how the Mint service answers.
    expect(text).toContain('*Status* · Mint service:');
    expect(text).not.toMatch(/Socket Mode|HTTP mode/);
    // Alice is no audit viewer: a button that only leads to a refusal is not shown to her.
    expect(text).not.toContain('Export audit log');
    expect(text).toContain(`Customer deletion: requests wait in <#${APPROVAL}>, approvers <@${BOB}>`);
    for (const secret of [fakes.slack.botToken, fakes.slack.appToken, TEST_SIGNING_SECRET, TEST_MINT_API_KEY])
      expect(text).not.toContain(secret);
  });

  it('opens the same forms as the commands from its buttons', async () => {
    const home = await openHome(ALICE);
    for (const [action, callbackId] of [
      [LINKS.buttons.createFromHome.actionId, 'link_form'],
      [WALLETS.buttons.createFromHome.actionId, 'wallet_form'],
      [DELETIONS.buttons.requestFromHome.actionId, 'deletion_request_form'],
      [TEMPLATES.buttons.browseFromHome.actionId, 'browse_templates_form'],
    ] as const) {
      const opened = fakes.slack.callsTo('views.open').length;
      await app.clickOnHome(home, action, ALICE);
      await fakes.slack.waitFor(
        () => fakes.slack.callsTo('views.open').length > opened,
        3_000,
        `the form of ${action}`,
      );
      expect(fakes.slack.lastOpenedView().callback_id).toBe(callbackId);
    }
  });
});
