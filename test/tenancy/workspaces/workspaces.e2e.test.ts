import { describe, expect, it } from 'vitest';
import { useApp, useFakes } from '../../kit/fakes.js';
import { TEST_TEAM_ID, TEST_USER_ID } from '../../kit/slack-ids.js';
import {
  DISTRIBUTION_ENV,
  OTHER_TEAM_ID,
  OTHER_USER_ID,
  inTeam,
  installWorkspace,
  uninstallEvent,
} from '../../kit/workspaces.js';
import { eventCallback } from '../../kit/slack-payloads.js';

/*
 * Distribution mode over HTTP: installs through Bolt's OAuth flow, each workspace's requests signed and
 * answered with its own token; and two replicas. Uninstalls, reinstalls and Slack's late or repeated uninstall
 * events are workspaces.test.ts's (the fast tier).
 */
describe('distribution mode over HTTP: each workspace with its own token', () => {
  const fakes = useFakes();
  const running = useApp(fakes, 'http', { env: DISTRIBUTION_ENV });
  const app = () => running.app;

  async function homeOpened(teamId: string, userId: string) {
    const body = inTeam(
      eventCallback({ type: 'app_home_opened', user: userId, channel: 'D0HOME', tab: 'home' }),
      teamId,
    );
    const response = await app().postSigned('/slack/events', JSON.stringify(body), 'application/json');
    expect(response.status).toBe(200);
  }

  it('publishes each workspace’s Home with that workspace’s token', async () => {
    const tokenA = await installWorkspace(app(), fakes.slack, { teamId: TEST_TEAM_ID });
    const tokenB = await installWorkspace(app(), fakes.slack, { teamId: OTHER_TEAM_ID, userId: OTHER_USER_ID });
    await homeOpened(OTHER_TEAM_ID, OTHER_USER_ID);
    const publishB = await fakes.slack.waitForCall('views.publish', (c) => c.params.user_id === OTHER_USER_ID);
    expect(publishB.token).toBe(tokenB);
    await homeOpened(TEST_TEAM_ID, TEST_USER_ID);
    const publishA = await fakes.slack.waitForCall('views.publish', (c) => c.params.user_id === TEST_USER_ID);
    expect(publishA.token).toBe(tokenA);
  });
});

describe('distribution mode with two replicas', () => {
  const fakes = useFakes();
  const running = useApp(fakes, 'http', { env: DISTRIBUTION_ENV });

  it('an uninstall seen by one replica reaches the other within 5 s', async () => {
    const first = running.app;
    const second = await fakes.startApp('http', { env: { ...DISTRIBUTION_ENV, DATABASE_URL: first.env.DATABASE_URL } });
    try {
      const token = await installWorkspace(first, fakes.slack, { teamId: OTHER_TEAM_ID, userId: OTHER_USER_ID });
      second.teamId = OTHER_TEAM_ID;
      const opened = async () => {
        const { fields } = await second.command('link', { user_id: OTHER_USER_ID });
        await second.waitForIdle();
        return fakes.slack.callsTo('views.open').find((c) => c.params.trigger_id === fields.trigger_id);
      };
      expect((await opened())?.token).toBe(token);

      await uninstallEvent(first, OTHER_TEAM_ID);
      await first.waitForLog((line) => line.msg === 'the app was removed from a workspace: its work is stopped');
      const removedAt = Date.now();
      while ((await opened()) !== undefined) expect(Date.now() - removedAt).toBeLessThan(5_000);
      expect(second.logs).toContain('request from a workspace without an installation: refused');
    } finally {
      await second.stop();
    }
  });
});
