import { describe, expect, it } from 'vitest';
import { useFakes, useListenerApp } from '../../kit/fakes.js';
import { installInProcess } from '../../kit/listener-installs.js';
import { eventCallback } from '../../kit/slack-payloads.js';
import { TEST_TEAM_ID } from '../../kit/slack-ids.js';
import { DISTRIBUTION_ENV, OTHER_TEAM_ID, inTeam } from '../../kit/workspaces.js';

/** One person of an Enterprise Grid organization: the same user id in both of its workspaces. */
const GRID_USER = 'W0GRIDUSER1';

/*
 * Review probe (issue 22): in an Enterprise Grid organization a user id is the same in every workspace. App
 * Home is published per workspace, with that workspace's token and content; opening it in one workspace must
 * not swallow the publish asked for in the other.
 */
describe('App Home of one Grid user in two workspaces', () => {
  const fakes = useFakes();
  const running = useListenerApp(fakes, { env: DISTRIBUTION_ENV });

  it('publishes each workspace’s Home with its own token when both are opened at once', async () => {
    const app = running.app;
    const tokenA = await installInProcess(app, fakes.slack, { teamId: TEST_TEAM_ID, userId: GRID_USER });
    const tokenB = await installInProcess(app, fakes.slack, { teamId: OTHER_TEAM_ID, userId: GRID_USER });
    const opened = (teamId: string) =>
      app.deliverEvent(
        inTeam(eventCallback({ type: 'app_home_opened', user: GRID_USER, channel: 'D0GRID', tab: 'home' }), teamId),
      );
    await Promise.all([opened(TEST_TEAM_ID), opened(OTHER_TEAM_ID)]);
    await app.waitForIdle();
    const tokens = new Set(
      fakes.slack
        .callsTo('views.publish')
        .filter((c) => c.params.user_id === GRID_USER)
        .map((c) => c.token),
    );
    expect(tokens).toEqual(new Set([tokenA, tokenB]));
  });
});
