import { describe, expect, it } from 'vitest';
import { useFakes, useListenerApp } from '../../kit/fakes.js';
import { installInProcess } from '../../kit/listener-installs.js';
import { TEST_TEAM_ID, TEST_USER_ID } from '../../kit/slack-ids.js';
import {
  DISTRIBUTION_ENV,
  OTHER_TEAM_ID,
  OTHER_USER_ID,
  botTokenOf,
  botUserOf,
  uninstallPayload,
} from '../../kit/workspaces.js';

const REMOVED = 'the app was removed from a workspace: its work is stopped';
const NOT_ABOUT = 'an uninstall that is not about the current installation: nothing changed';
const AGAIN = 'event delivered again; already handled';
const REFUSED = 'request from a workspace without an installation: refused';

/*
 * Distribution mode on the fast tier: each workspace's installation in the app's store as the OAuth flow
 * stores it, Bolt's authorize reading it for every request. The flow over HTTP and the replicas are
 * workspaces.e2e.test.ts's.
 */
describe('distribution mode: each workspace with its own token, and uninstalls', () => {
  const fakes = useFakes();
  const running = useListenerApp(fakes, { env: DISTRIBUTION_ENV });
  const app = () => running.app;

  async function homeOpened(teamId: string, userId: string) {
    app().teamId = teamId;
    await app().event({ type: 'app_home_opened', user: userId, channel: 'D0HOME', tab: 'home' });
  }

  async function installationIds(): Promise<string[]> {
    return (await app().openStore().installationRows.all()).map((installation) => installation.id).sort();
  }

  it('publishes each workspace’s Home with that workspace’s token', async () => {
    const tokenA = await installInProcess(app(), fakes.slack, { teamId: TEST_TEAM_ID });
    const tokenB = await installInProcess(app(), fakes.slack, { teamId: OTHER_TEAM_ID, userId: OTHER_USER_ID });
    await homeOpened(OTHER_TEAM_ID, OTHER_USER_ID);
    const publishB = await fakes.slack.waitForCall('views.publish', (c) => c.params.user_id === OTHER_USER_ID);
    expect(publishB.token).toBe(tokenB);
    await homeOpened(TEST_TEAM_ID, TEST_USER_ID);
    const publishA = await fakes.slack.waitForCall('views.publish', (c) => c.params.user_id === TEST_USER_ID);
    expect(publishA.token).toBe(tokenA);
  });

  it('removes the installation at once on app_uninstalled, keeps the other workspace, and takes a reinstall', async () => {
    await installInProcess(app(), fakes.slack, { teamId: TEST_TEAM_ID });
    await installInProcess(app(), fakes.slack, { teamId: OTHER_TEAM_ID, userId: OTHER_USER_ID });
    await app().deliverEvent(uninstallPayload(OTHER_TEAM_ID));
    await app().waitForLog((line) => line.msg === REMOVED);
    expect(await installationIds()).toEqual([`T${TEST_TEAM_ID}`]);

    await homeOpened(OTHER_TEAM_ID, OTHER_USER_ID);
    await app().waitForLog((line) => line.msg === REFUSED);
    await app().waitForIdle();
    expect(fakes.slack.callsTo('views.publish').filter((c) => c.params.user_id === OTHER_USER_ID)).toHaveLength(0);

    const again = await installInProcess(app(), fakes.slack, { teamId: OTHER_TEAM_ID, userId: OTHER_USER_ID });
    expect(again).toBe(botTokenOf(fakes.slack, OTHER_TEAM_ID));
    await homeOpened(OTHER_TEAM_ID, OTHER_USER_ID);
    const publish = await fakes.slack.waitForCall('views.publish', (c) => c.params.user_id === OTHER_USER_ID);
    expect(publish.token).toBe(again);
  });

  it('treats a revoked bot token as an uninstall', async () => {
    await installInProcess(app(), fakes.slack, { teamId: OTHER_TEAM_ID, userId: OTHER_USER_ID });
    await app().deliverEvent(
      uninstallPayload(OTHER_TEAM_ID, 'tokens_revoked', { botUserIds: [botUserOf(fakes.slack, OTHER_TEAM_ID)] }),
    );
    await app().waitForLog((line) => line.msg === REMOVED && line.reason === 'tokens_revoked');
    expect(await installationIds()).not.toContain(`T${OTHER_TEAM_ID}`);
  });
});

/*
 * Issue 29: Slack delivers an event again (same event_id and event_time, with x-slack-retry-num) when its ack
 * seemed slow, up to about five minutes later. A workspace that reinstalled meanwhile must keep its new
 * installation and its newly connected Mint key; an uninstall older than the installation, or naming another
 * bot user, changes nothing and says so in one line.
 */
describe('uninstall events delivered late or again (distribution mode)', () => {
  const fakes = useFakes();
  const running = useListenerApp(fakes, { env: DISTRIBUTION_ENV });
  const app = () => running.app;
  const linesSaying = (msg: string, from: number) =>
    app()
      .logLines.slice(from)
      .filter((line) => line.msg === msg);

  async function installationAndKey(teamId: string) {
    const store = app().openStore();
    return {
      installation: (await store.installationRows.get(`T${teamId}`))?.id,
      mintKey: (await store.mintAccountRows.get(teamId))?.teamId,
    };
  }

  /** The workspace's Home published with the bot token `token`, as Slack's app_home_opened asks. */
  async function homeReachable(token: string) {
    await app().deliverEvent({
      ...uninstallPayload(OTHER_TEAM_ID), // the envelope of an event from that workspace
      event: { type: 'app_home_opened', user: OTHER_USER_ID, channel: 'D0HOME', tab: 'home', event_ts: '1.2' },
    });
    const publish = await fakes.slack.waitForCall('views.publish', (c) => c.params.user_id === OTHER_USER_ID);
    expect(publish.token).toBe(token);
  }

  it('a retry of app_uninstalled after a reinstall leaves the new installation and its Mint key', async () => {
    await installInProcess(app(), fakes.slack, { teamId: OTHER_TEAM_ID, userId: OTHER_USER_ID });
    const from = app().logLines.length;
    const uninstall = uninstallPayload(OTHER_TEAM_ID);
    await app().deliverEvent(uninstall);
    await app().waitForLog((line) => line.msg === REMOVED);
    expect((await installationAndKey(OTHER_TEAM_ID)).installation).toBeUndefined();

    // The workspace installs the app again and connects its Mint account; then Slack's retry of the uninstall.
    const token = await installInProcess(app(), fakes.slack, { teamId: OTHER_TEAM_ID, userId: OTHER_USER_ID });
    await app().deliverEvent(uninstall, 1);
    await app().waitForLog((line) => line.msg === AGAIN && line.retryNum === 1 && line.retryReason === 'http_timeout');
    await app().waitForIdle();

    expect(await installationAndKey(OTHER_TEAM_ID)).toEqual({
      installation: `T${OTHER_TEAM_ID}`,
      mintKey: OTHER_TEAM_ID,
    });
    expect(linesSaying(REMOVED, from)).toHaveLength(1);
    await homeReachable(token);
  });

  it('an uninstall Slack says happened before the current installation changes nothing, in one log line', async () => {
    // Its first delivery never reached the app (down, or a proxy's 503); the workspace reinstalled since.
    const stale = uninstallPayload(OTHER_TEAM_ID, 'app_uninstalled', { eventTime: Math.floor(Date.now() / 1000) - 90 });
    const token = await installInProcess(app(), fakes.slack, { teamId: OTHER_TEAM_ID, userId: OTHER_USER_ID });
    const from = app().logLines.length;
    await app().deliverEvent(stale, 2);
    await app().waitForLog((line) => line.msg === NOT_ABOUT);
    await app().waitForIdle();

    const said = linesSaying(NOT_ABOUT, from);
    expect(said).toHaveLength(1);
    expect(said[0]).toMatchObject({
      installation: `T${OTHER_TEAM_ID}`,
      reason: 'app_uninstalled',
      why: 'it happened before the current installation was written',
    });
    expect(linesSaying(REMOVED, from)).toEqual([]);
    expect(linesSaying('installation deleted', from)).toEqual([]);
    expect(await installationAndKey(OTHER_TEAM_ID)).toEqual({
      installation: `T${OTHER_TEAM_ID}`,
      mintKey: OTHER_TEAM_ID,
    });
    await homeReachable(token);
  });

  it('tokens_revoked naming a bot user that is not the installed one changes nothing; naming it removes the app', async () => {
    await installInProcess(app(), fakes.slack, { teamId: OTHER_TEAM_ID, userId: OTHER_USER_ID });
    const from = app().logLines.length;
    await app().deliverEvent(uninstallPayload(OTHER_TEAM_ID, 'tokens_revoked', { botUserIds: ['U0FORMERBOT'] }));
    await app().waitForLog((line) => line.msg === NOT_ABOUT);
    await app().waitForIdle();
    expect(linesSaying(NOT_ABOUT, from)).toEqual([
      expect.objectContaining({ reason: 'tokens_revoked', why: 'it names a bot user that is not the installed one' }),
    ]);
    expect((await installationAndKey(OTHER_TEAM_ID)).installation).toBe(`T${OTHER_TEAM_ID}`);

    await app().deliverEvent(
      uninstallPayload(OTHER_TEAM_ID, 'tokens_revoked', { botUserIds: [botUserOf(fakes.slack, OTHER_TEAM_ID)] }),
    );
    await app().waitForLog((line) => line.msg === REMOVED && line.reason === 'tokens_revoked');
    expect(await installationAndKey(OTHER_TEAM_ID)).toEqual({ installation: undefined, mintKey: undefined });
  });
});
