import { describe, expect, it } from 'vitest';
import { FIELDS } from '../../../src/capabilities/settings/settings-form.js';
import { useFakes, useListenerApp } from '../../kit/fakes.js';
import { installInProcess } from '../../kit/listener-installs.js';
import { SettingsFlow } from '../../kit/settings-flow.js';
import { TEST_TEAM_ID } from '../../kit/slack-ids.js';
import { textOf } from '../../kit/slack-checks.js';
import { DISTRIBUTION_ENV, OTHER_TEAM_ID } from '../../kit/workspaces.js';

const APPROVAL = 'C0APPROVE';
const ADMIN = 'U0ADMIN01'; // a workspace admin, as Slack reports (users.info), in both workspaces
const ALICE = 'U0ALICE01'; // in the first workspace, with a Home
const IN_B = ['U0BETTY01', 'U0BRUNO01', 'U0BASIL01']; // in the other workspace, with a Home each

describe('settings with many workspaces', () => {
  const fakes = useFakes();
  const settings = new SettingsFlow(fakes);
  const running = useListenerApp(fakes, {
    env: {
      ...DISTRIBUTION_ENV,
      APPROVAL_CHANNEL_ID: APPROVAL,
      DELETION_APPROVERS: 'U0BOB0001',
    },
  });
  const app = () => running.app;

  it('changes one workspace’s settings only, announced there with its token', async () => {
    fakes.slack.workspaceAdmins.add(ADMIN);
    const tokenA = await installInProcess(app(), fakes.slack, { teamId: TEST_TEAM_ID, userId: ADMIN });
    const tokenB = await installInProcess(app(), fakes.slack, { teamId: OTHER_TEAM_ID, userId: ADMIN });
    await settings.home(app(), ALICE); // a Home in the first workspace: not refreshed by the other's change
    await settings.home(app(), ADMIN); // the admin's Home there too

    app().teamId = OTHER_TEAM_ID;
    let publishes = 0;
    try {
      for (const user of IN_B) await settings.home(app(), user);
      const form = await settings.open(app(), ADMIN, await settings.home(app(), ADMIN));
      await app().waitForIdle();
      publishes = fakes.slack.callsTo('views.publish').length;
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
      expect(await store.workspaceSettingsRows.get(TEST_TEAM_ID)).toBeUndefined();
      expect((await store.workspaceSettingsRows.get(OTHER_TEAM_ID))?.version).toBe(1);
    } finally {
      await store.close();
    }
    await app().waitForIdle();
    // Every Home of the changed workspace is published again, with its token; none of the other's.
    const refreshed = fakes.slack.callsTo('views.publish').slice(publishes);
    expect(refreshed.map((c) => c.params.user_id).sort()).toEqual([ADMIN, ...IN_B].sort());
    expect(new Set(refreshed.map((c) => c.token))).toEqual(new Set([tokenB]));
    expect(fakes.slack.callsTo('views.publish').filter((c) => c.token === tokenA)).toHaveLength(2); // their openings
    const alicePublishes = fakes.slack.callsTo('views.publish').filter((c) => c.params.user_id === ALICE);
    expect(alicePublishes).toHaveLength(1); // her own opening only
    expect(textOf(await settings.home(app(), ADMIN))).not.toContain('10 hours');
  });
});
