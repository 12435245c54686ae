import { describe, expect, it } from 'vitest';
import { useFakes } from '../../kit/fakes.js';
import { installInProcess } from '../../kit/listener-installs.js';
import { textOf } from '../../kit/slack-checks.js';
import { TEST_TEAM_ID, TEST_USER_ID } from '../../kit/slack-ids.js';
import { globalShortcut, userContext } from '../../kit/slack-payloads.js';
import { OTHER_TEAM_ID, OTHER_USER_ID } from '../../kit/workspaces.js';
import { KEY_A, KEY_B, useWorkspaces } from '../../tenancy/mint-accounts/workspace-flow.js';
import { WALLETS } from '../../../src/capabilities/wallets/actions.js';
import { MINT_ACCOUNT } from '../../../src/capabilities/mint-account/actions.js';

describe('wallets in many workspaces, each with its own Mint account', () => {
  const fakes = useFakes();
  const flow = useWorkspaces(fakes);
  const walletKeys = () => fakes.mint.requestsTo('create_wallet').map((r) => [r.body, r.headers['x-api-key']]);

  async function installBoth() {
    await installInProcess(flow.app, fakes.slack, { teamId: TEST_TEAM_ID, userId: TEST_USER_ID }, null);
    await installInProcess(flow.app, fakes.slack, { teamId: OTHER_TEAM_ID, userId: OTHER_USER_ID }, null);
  }

  it('creates each workspace’s wallets, from the form and the workflow step, with its own key', async () => {
    await installBoth();
    await flow.connect(TEST_USER_ID, KEY_A);
    await flow.connect(OTHER_USER_ID, KEY_B, OTHER_TEAM_ID);

    for (const [teamId, userId, customer] of [
      [TEST_TEAM_ID, TEST_USER_ID, 'cus_a'],
      [OTHER_TEAM_ID, OTHER_USER_ID, 'cus_b'],
    ] as const) {
      const { form } = await flow.formFromCommand(`wallet ${customer}`, userId, teamId);
      expect(form.callback_id).toBe(WALLETS.forms.create.callbackId);
      await flow.submit(form, {}, userId, teamId);
      expect(textOf(await fakes.slack.viewUpdate(form.id))).toContain('Wallet created');
    }
    const step = await flow.step(
      WALLETS.steps.createWallet.callbackId,
      { customer_id: 'cus_b_wf', acting_user: userContext(OTHER_USER_ID) },
      OTHER_TEAM_ID,
    );
    expect(step.state).toBe('completed');
    expect(walletKeys()).toEqual([
      [{ userId: 'cus_a' }, KEY_A],
      [{ userId: 'cus_b' }, KEY_B],
      [{ userId: 'cus_b_wf' }, KEY_B],
    ]);
  });

  it('tells a workspace without an account how to connect one, before the form, and fails the step', async () => {
    await installBoth();
    await flow.connect(TEST_USER_ID, KEY_A); // A only

    const { ack } = await flow.command('wallet cus_b', OTHER_USER_ID, OTHER_TEAM_ID);
    expect(textOf(ack)).toContain('No Mint account is connected to this workspace yet');
    const opened = fakes.slack.callsTo('views.open').length;
    await flow.interact(globalShortcut(fakes.slack, WALLETS.shortcuts.create.callbackId, OTHER_USER_ID), OTHER_TEAM_ID);
    const notice = await fakes.slack.waitFor(() => fakes.slack.callsTo('views.open')[opened]);
    expect(textOf(notice.params.view)).toContain('No Mint account is connected');
    const fromHome = await flow.click(
      await flow.home(OTHER_USER_ID, OTHER_TEAM_ID),
      WALLETS.buttons.createFromHome.actionId,
      OTHER_USER_ID,
      OTHER_TEAM_ID,
    );
    expect(fromHome?.callback_id).toBeUndefined();
    expect(textOf(fromHome)).toContain('Connect your Mint account');

    const step = await flow.step(
      WALLETS.steps.createWallet.callbackId,
      { acting_user: userContext(OTHER_USER_ID) },
      OTHER_TEAM_ID,
    );
    expect(step).toMatchObject({ state: 'failed', error: expect.stringContaining('No Mint account is connected') });
    expect(fakes.mint.requestsTo('create_wallet')).toHaveLength(0);

    // A form opened while an account was connected, submitted after it was removed, says so in the modal.
    const { form } = await flow.formFromCommand('wallet cus_a', TEST_USER_ID);
    await flow.click(await flow.home(TEST_USER_ID), MINT_ACCOUNT.buttons.remove.actionId, TEST_USER_ID);
    const refused = await flow.submit(form, {}, TEST_USER_ID);
    expect(refused).toMatchObject({ response_action: 'update' });
    expect(textOf(refused)).toContain('No Mint account is connected');
    expect(fakes.mint.requestsTo('create_wallet')).toHaveLength(0);
  });
});
