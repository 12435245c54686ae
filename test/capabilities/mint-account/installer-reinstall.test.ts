import { describe, expect, it } from 'vitest';
import { ACCOUNT_BLOCKS } from '../../../src/capabilities/mint-account/connect-form.js';
import { useFakes } from '../../kit/fakes.js';
import { installInProcess } from '../../kit/listener-installs.js';
import { textOf } from '../../kit/slack-checks.js';
import type { SlackView } from '../../kit/slack-payloads.js';
import { TEST_TEAM_ID, TEST_USER_ID } from '../../kit/slack-ids.js';
import { KEY_A, KEY_B, useWorkspaces } from '../../tenancy/mint-accounts/workspace-flow.js';
import { MINT_ACCOUNT } from '../../../src/capabilities/mint-account/actions.js';

/** Installs workspace A first, and connects its Mint account. */
const INSTALLER_A = TEST_USER_ID;
/** A member of A: not a workspace admin, not a settings admin; Slack lets members add apps. */
const MEMBER = 'U0MEMBER01';

/*
 * Review probe (issue 22): "the installer" administers the workspace's Mint account. A reinstall ("Add to
 * Slack" again, which any member allowed to add apps may do) must not hand that right to whoever ran it.
 */
describe('who administers the Mint account after another member reinstalls the app', () => {
  const fakes = useFakes();
  const flow = useWorkspaces(fakes);

  it('a member who runs Add to Slack again cannot replace or remove the key the installer connected', async () => {
    await installInProcess(flow.app, fakes.slack, { teamId: TEST_TEAM_ID, userId: INSTALLER_A }, null);
    await flow.connect(INSTALLER_A, KEY_A);
    // The member opens /slack/install and allows the app again (same workspace, same scopes).
    await installInProcess(flow.app, fakes.slack, { teamId: TEST_TEAM_ID, userId: MEMBER }, null);

    const home = await flow.home(MEMBER);
    const offered = textOf(home).includes(MINT_ACCOUNT.buttons.replace.actionId);
    // The member tries Replace key (from a Home with the buttons, as they had it or forged): the form must not
    // open for them, and the key must stay A's.
    const withButtons: SlackView = {
      id: home.id,
      type: 'home',
      blocks: [
        {
          type: 'actions',
          block_id: 'mint_account',
          elements: [MINT_ACCOUNT.buttons.replace.actionId, MINT_ACCOUNT.buttons.remove.actionId].map((id) => ({
            type: 'button',
            action_id: id,
          })),
        },
      ],
    };
    const form = await flow.click(withButtons, MINT_ACCOUNT.buttons.replace.actionId, MEMBER);
    if (form?.callback_id === MINT_ACCOUNT.forms.connect.callbackId)
      await flow.submit(form, { [ACCOUNT_BLOCKS.apiKey]: KEY_B }, MEMBER);
    expect(await flow.rows('select key_last4, connected_by from mint_accounts')).toEqual([
      { key_last4: '1234', connected_by: INSTALLER_A },
    ]);
    expect(offered).toBe(false);
    // Nor may they remove it.
    await flow.click(withButtons, MINT_ACCOUNT.buttons.remove.actionId, MEMBER);
    expect(await flow.rows('select count(*) as n from mint_accounts')).toEqual([{ n: 1 }]);
  });
});
