/*
 * The Mint account over each transport, end to end. A workspace connects its own account only in distribution
 * mode, which runs over HTTP alone (installs need Slack to send the installer back to /slack/oauth_redirect; the
 * configuration refuses SLACK_APP_TOKEN there): the connection is tested over signed HTTP. Over both transports,
 * in single-workspace mode, a click on the connect button (from a stale or forged Home) is answered with where
 * the account comes from. Every behaviour of the form is in mint-account.test.ts.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { MINT_ACCOUNT } from '../../../src/capabilities/mint-account/actions.js';
import { ACCOUNT_BLOCKS } from '../../../src/capabilities/mint-account/connect-form.js';
import { CONNECT_MINT_ACCOUNT_ACTION } from '../../../src/tenancy/mint-accounts/not-connected.js';
import { useApp, useFakes } from '../../kit/fakes.js';
import type { FakeSlack } from '../../kit/fake-slack.js';
import type { RunningApp } from '../../kit/running-app.js';
import { expectNoRejectedSlackCalls, expectNoSecretsLeaked, textOf } from '../../kit/slack-checks.js';
import { TEST_TEAM_ID, TEST_USER_ID } from '../../kit/slack-ids.js';
import type { SlackView } from '../../kit/slack-payloads.js';
import { DISTRIBUTION_ENV, TEST_CLIENT_SECRET, TEST_STATE_SECRET, installWorkspace } from '../../kit/workspaces.js';

/** The key the workspace's admin pastes: the mock Mint service accepts it. */
const WORKSPACE_KEY = 'acme-mint-key-e2e-Qw7Ld2Rv9042';

/** `user` opens their Home; resolves with it once published `showing` the text. */
async function homeShowing(app: RunningApp, slack: FakeSlack, user: string, showing: string): Promise<SlackView> {
  await app.event({ type: 'app_home_opened', user, channel: `D${user.slice(1)}`, tab: 'home' });
  const shows = () =>
    slack.callsTo('views.publish').some((c) => c.params.user_id === user && textOf(c.params.view).includes(showing));
  await slack.waitFor(shows, 5_000, `the Home of ${user} showing ${showing}`);
  return slack.view(user);
}

describe('connect a Mint account from Home (distribution mode, over HTTP)', () => {
  const fakes = useFakes();
  const running = useApp(fakes, 'http', { env: DISTRIBUTION_ENV });

  afterEach(() => {
    expectNoRejectedSlackCalls(fakes.slack);
    // Distribution mode's own secrets too: its state secret, its sealing key, and the bot tokens Slack issued.
    expectNoSecretsLeaked(fakes.slack, running.app, [
      WORKSPACE_KEY,
      TEST_STATE_SECRET,
      DISTRIBUTION_ENV.SECRETS_KEYS,
      ...fakes.slack.issuedTokens.keys(),
    ]);
    // The client secret goes to Slack in the code exchange (oauth.v2.access) only, and never to a log.
    const elsewhere = fakes.slack.calls.filter((c) => c.method !== 'oauth.v2.access');
    expect(JSON.stringify([elsewhere.map((c) => c.params), fakes.slack.responses])).not.toContain(TEST_CLIENT_SECRET);
    expect(running.app.logs).not.toContain(TEST_CLIENT_SECRET);
  });

  it('opens the form from Home, takes the key, and shows the account connected on Home', async () => {
    fakes.mint.acceptKey(WORKSPACE_KEY);
    await installWorkspace(running.app, fakes.slack, { teamId: TEST_TEAM_ID, userId: TEST_USER_ID }, null);
    const home = await homeShowing(running.app, fakes.slack, TEST_USER_ID, ':electric_plug: not connected');

    await running.app.clickOnHome(home, CONNECT_MINT_ACCOUNT_ACTION, TEST_USER_ID);
    await fakes.slack.waitForCall('views.open');
    const form = fakes.slack.lastOpenedView();
    expect(form.callback_id).toBe(MINT_ACCOUNT.forms.connect.callbackId);
    const ack = await running.app.submitView(form, { [ACCOUNT_BLOCKS.apiKey]: WORKSPACE_KEY }, TEST_USER_ID);
    expect(ack?.response_action).toBe('update');
    expect(textOf(await fakes.slack.viewUpdate(form.id))).toContain('*Mint account connected.*');

    const connected = await homeShowing(running.app, fakes.slack, TEST_USER_ID, 'Key ending `9042`');
    expect(textOf(connected)).toContain(`connected by <@${TEST_USER_ID}>`);
    expect(textOf(connected)).toContain(MINT_ACCOUNT.buttons.replace.actionId);
    await running.app.waitForIdle();
  });
});

describe.each(['http', 'socket'] as const)('a connect click in single-workspace mode (%s mode)', (mode) => {
  const fakes = useFakes();
  const running = useApp(fakes, mode);

  afterEach(() => {
    expectNoRejectedSlackCalls(fakes.slack);
    expectNoSecretsLeaked(fakes.slack, running.app);
  });

  it('answers with where the account comes from, and opens no form', async () => {
    const staleHome: SlackView = {
      id: 'V0STALEHOME',
      type: 'home',
      blocks: [
        { type: 'actions', block_id: 'stale', elements: [{ type: 'button', action_id: CONNECT_MINT_ACCOUNT_ACTION }] },
      ],
    };
    await running.app.clickOnHome(staleHome, CONNECT_MINT_ACCOUNT_ACTION, TEST_USER_ID);
    const dm = await fakes.slack.waitForCall('chat.postMessage', (c) => c.params.channel === TEST_USER_ID);
    expect(dm.params.text).toContain('uses the Mint account its operator set up (MINT_API_KEY)');
    await running.app.waitForIdle();
    expect(fakes.slack.callsTo('views.open')).toHaveLength(0);
  });
});
