import { describe, expect, it } from 'vitest';
import { FIELDS } from '../../src/settings/settings-form.js';
import { useApp, useFakes } from '../kit/fakes.js';
import { SettingsFlow } from '../kit/settings-flow.js';
import { TEST_TEAM_ID } from '../kit/slack-ids.js';
import { textOf } from '../kit/slack-checks.js';
import { DISTRIBUTION_ENV, OTHER_TEAM_ID, installWorkspace } from '../kit/workspaces.js';

const APPROVAL = 'C0APPROVE';
const ADMIN = 'U0ADMIN01'; // a workspace admin, as Slack reports (users.info), in both workspaces
const ALICE = 'U0ALICE01'; // in the first workspace, with a Home

describe('settings with many workspaces', () => {
  const fakes = useFakes();
  const settings = new SettingsFlow(fakes);
  const running = useApp(fakes, 'http', {
    env: {
      ...DISTRIBUTION_ENV,
      APPROVAL_CHANNEL_ID: APPROVAL,
      DELETION_APPROVERS: 'U0BOB0001',
    },
  });
  const app = () => running.app;

  it('changes one workspace’s settings only, announced there with its token', async () => {
    fakes.slack.workspaceAdmins.add(ADMIN);
    await installWorkspace(app(), fakes.slack, { teamId: TEST_TEAM_ID, userId: ADMIN });
    const tokenB = await installWorkspace(app(), fakes.slack, { teamId: OTHER_TEAM_ID, userId: ADMIN });
    await settings.home(app(), ALICE); // a Home in the first workspace: not refreshed by the other's change

    app().teamId = OTHER_TEAM_ID;
    try {
      const form = await settings.open(app(), ADMIN, await settings.home(app(), ADMIN));
      const ack = await settings.save(app(), form, { [FIELDS.quorum]: '1', [FIELDS.ttlHours]: '10' }, ADMIN);
      expect(textOf(ack)).toContain('*Saved.*');
    } finally {
      app().teamId = TEST_TEAM_ID;
    }
    const announced = await fakes.slack.waitForCall(
      'chat.postMessage',
      (c) => c.params.channel === APPROVAL && textOf(c.params.blocks).includes('changed'),
    );
    expect(announced.token).toBe(tokenB);

    const store = app().openStore();
    try {
      expect(await store.workspaceSettings.get(TEST_TEAM_ID)).toBeUndefined();
      expect((await store.workspaceSettings.get(OTHER_TEAM_ID))?.version).toBe(1);
    } finally {
      await store.close();
    }
    await app().waitForIdle();
    const alicePublishes = fakes.slack.callsTo('views.publish').filter((c) => c.params.user_id === ALICE);
    expect(alicePublishes).toHaveLength(1); // her own opening only
    expect(textOf(await settings.home(app(), ADMIN))).not.toContain('10 hours');
  });
});
