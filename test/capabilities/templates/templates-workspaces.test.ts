import { describe, expect, it } from 'vitest';
import { DEMO_CONTRACT_ID } from '../../../src/operator/mock-mint-api/demo-templates.js';
import { BROWSE_BLOCKS } from '../../../src/capabilities/templates/browse-templates-form.js';
import { useFakes } from '../../kit/fakes.js';
import { installInProcess } from '../../kit/listener-installs.js';
import { textOf } from '../../kit/slack-checks.js';
import { TEST_TEAM_ID, TEST_USER_ID } from '../../kit/slack-ids.js';
import { globalShortcut, type PostedMessage } from '../../kit/slack-payloads.js';
import { OTHER_TEAM_ID, OTHER_USER_ID } from '../../kit/workspaces.js';
import { KEY_A, KEY_B, useWorkspaces } from '../../tenancy/mint-accounts/workspace-flow.js';
import { TEMPLATES } from '../../../src/capabilities/templates/actions.js';

describe('templates in many workspaces, each with its own Mint account', () => {
  const fakes = useFakes();
  const flow = useWorkspaces(fakes);
  const keysUsed = () => fakes.mint.requestsTo('list_templates').map((r) => r.headers['x-api-key']);

  async function installBoth() {
    await installInProcess(flow.app, fakes.slack, { teamId: TEST_TEAM_ID, userId: TEST_USER_ID }, null);
    await installInProcess(flow.app, fakes.slack, { teamId: OTHER_TEAM_ID, userId: OTHER_USER_ID }, null);
  }

  it('lists, pages, browses and runs the step with the key of the workspace each request comes from', async () => {
    await installBoth();
    await flow.connect(TEST_USER_ID, KEY_A);
    await flow.connect(OTHER_USER_ID, KEY_B, OTHER_TEAM_ID);

    const { fields } = await flow.command(`templates ${DEMO_CONTRACT_ID}`, TEST_USER_ID);
    const [posted] = await fakes.slack.waitForResponse(fields.response_url ?? '');
    const page = posted?.body as PostedMessage;
    expect(textOf(page)).toContain('1–10 of 123');
    // The page in a channel shared with workspace B: B's member pages it with B's own account.
    const url = await flow.clickMessage(page, TEMPLATES.buttons.next.actionId, OTHER_USER_ID, OTHER_TEAM_ID);
    await fakes.slack.waitForResponse(url, 2);

    const opened = fakes.slack.callsTo('views.open').length;
    await flow.interact(
      globalShortcut(fakes.slack, TEMPLATES.shortcuts.browse.callbackId, OTHER_USER_ID),
      OTHER_TEAM_ID,
    );
    await fakes.slack.waitFor(() => fakes.slack.callsTo('views.open')[opened]);
    const form = fakes.slack.lastOpenedView();
    await flow.submit(
      form,
      { [BROWSE_BLOCKS.contractId]: DEMO_CONTRACT_ID, [BROWSE_BLOCKS.conversation]: 'C0SHARED1' },
      OTHER_USER_ID,
      OTHER_TEAM_ID,
    );
    expect(textOf(await fakes.slack.viewUpdate(form.id))).toContain('Posted the templates');

    const step = await flow.step(
      TEMPLATES.steps.listTemplates.callbackId,
      { contract_id: DEMO_CONTRACT_ID, limit: 3 },
      TEST_TEAM_ID,
    );
    expect(step.state).toBe('completed');
    expect(keysUsed()).toEqual([KEY_A, KEY_B, KEY_B, KEY_A]);
  });

  it('tells a workspace without an account how to connect one, and fails the step', async () => {
    await installBoth();
    await flow.connect(TEST_USER_ID, KEY_A);

    const { ack } = await flow.command(`templates ${DEMO_CONTRACT_ID}`, OTHER_USER_ID, OTHER_TEAM_ID);
    expect(textOf(ack)).toContain('No Mint account is connected to this workspace yet');
    const { fields } = await flow.command(`templates ${DEMO_CONTRACT_ID}`, TEST_USER_ID);
    const [posted] = await fakes.slack.waitForResponse(fields.response_url ?? '');
    const url = await flow.clickMessage(
      posted?.body as PostedMessage,
      TEMPLATES.buttons.next.actionId,
      OTHER_USER_ID,
      OTHER_TEAM_ID,
    );
    const [told] = await fakes.slack.waitForResponse(url);
    expect(textOf(told?.body)).toContain('No Mint account is connected');

    const step = await flow.step(
      TEMPLATES.steps.listTemplates.callbackId,
      { contract_id: DEMO_CONTRACT_ID },
      OTHER_TEAM_ID,
    );
    expect(step).toMatchObject({ state: 'failed', error: expect.stringContaining('No Mint account is connected') });
    expect(keysUsed()).toEqual([KEY_A]);
  });
});
