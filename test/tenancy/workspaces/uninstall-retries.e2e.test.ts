import { describe, expect, it } from 'vitest';
import { useApp, useFakes } from '../../kit/fakes.js';
import { queryRows } from '../../kit/raw-sql.js';
import type { RunningApp } from '../../kit/running-app.js';
import {
  DISTRIBUTION_ENV,
  OTHER_TEAM_ID,
  OTHER_USER_ID,
  botUserOf,
  deliverEvent,
  installWorkspace,
  uninstallEvent,
  uninstallPayload,
} from '../../kit/workspaces.js';

const REMOVED = 'the app was removed from a workspace: its work is stopped';
const NOT_ABOUT = 'an uninstall that is not about the current installation: nothing changed';
const AGAIN = 'event delivered again; already handled';

/*
 * Issue 29: Slack delivers an event again (same event_id and event_time, with x-slack-retry-num) when its ack
 * seemed slow, up to about five minutes later. A workspace that reinstalled meanwhile must keep its new
 * installation and its newly connected Mint key; an uninstall older than the installation, or naming another
 * bot user, changes nothing and says so in one line.
 */
describe('uninstall events delivered late or again (distribution mode, HTTP)', () => {
  const fakes = useFakes();
  const running = useApp(fakes, 'http', { env: DISTRIBUTION_ENV });
  const app = () => running.app;
  const rows = (sql: string) => queryRows(app().env.DATABASE_URL ?? '', sql);
  const linesSaying = (msg: string, from: number) =>
    app()
      .logLines.slice(from)
      .filter((line) => line.msg === msg);

  async function installationAndKey(teamId: string) {
    return {
      installation: await rows(`select id from installations where id = 'T${teamId}'`),
      mintKey: await rows(`select team_id from mint_accounts where team_id = '${teamId}'`),
    };
  }

  /** The workspace's Home published with the bot token `token`, as Slack's app_home_opened asks. */
  async function homeReachable(app: RunningApp, token: string) {
    await deliverEvent(app, {
      ...uninstallPayload(OTHER_TEAM_ID), // the envelope of an event from that workspace
      event: { type: 'app_home_opened', user: OTHER_USER_ID, channel: 'D0HOME', tab: 'home', event_ts: '1.2' },
    });
    const publish = await fakes.slack.waitForCall('views.publish', (c) => c.params.user_id === OTHER_USER_ID);
    expect(publish.token).toBe(token);
  }

  it('a retry of app_uninstalled after a reinstall leaves the new installation and its Mint key', async () => {
    await installWorkspace(app(), fakes.slack, { teamId: OTHER_TEAM_ID, userId: OTHER_USER_ID });
    const from = app().logLines.length;
    const uninstall = await uninstallEvent(app(), OTHER_TEAM_ID);
    await app().waitForLog((line) => line.msg === REMOVED);
    expect((await installationAndKey(OTHER_TEAM_ID)).installation).toEqual([]);

    // The workspace installs the app again and connects its Mint account; then Slack's retry of the uninstall.
    const token = await installWorkspace(app(), fakes.slack, { teamId: OTHER_TEAM_ID, userId: OTHER_USER_ID });
    await deliverEvent(app(), uninstall, 1);
    await app().waitForLog((line) => line.msg === AGAIN && line.retryNum === 1 && line.retryReason === 'http_timeout');
    await app().waitForIdle();

    expect(await installationAndKey(OTHER_TEAM_ID)).toEqual({
      installation: [{ id: `T${OTHER_TEAM_ID}` }],
      mintKey: [{ team_id: OTHER_TEAM_ID }],
    });
    expect(linesSaying(REMOVED, from)).toHaveLength(1);
    await homeReachable(app(), token);
  });

  it('an uninstall Slack says happened before the current installation changes nothing, in one log line', async () => {
    // Its first delivery never reached the app (down, or a proxy's 503); the workspace reinstalled since.
    const stale = uninstallPayload(OTHER_TEAM_ID, 'app_uninstalled', { eventTime: Math.floor(Date.now() / 1000) - 90 });
    const token = await installWorkspace(app(), fakes.slack, { teamId: OTHER_TEAM_ID, userId: OTHER_USER_ID });
    const from = app().logLines.length;
    await deliverEvent(app(), stale, 2);
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
      installation: [{ id: `T${OTHER_TEAM_ID}` }],
      mintKey: [{ team_id: OTHER_TEAM_ID }],
    });
    await homeReachable(app(), token);
  });

  it('tokens_revoked naming a bot user that is not the installed one changes nothing; naming it removes the app', async () => {
    await installWorkspace(app(), fakes.slack, { teamId: OTHER_TEAM_ID, userId: OTHER_USER_ID });
    const from = app().logLines.length;
    await uninstallEvent(app(), OTHER_TEAM_ID, 'tokens_revoked', { botUserIds: ['U0FORMERBOT'] });
    await app().waitForLog((line) => line.msg === NOT_ABOUT);
    await app().waitForIdle();
    expect(linesSaying(NOT_ABOUT, from)).toEqual([
      expect.objectContaining({ reason: 'tokens_revoked', why: 'it names a bot user that is not the installed one' }),
    ]);
    expect((await installationAndKey(OTHER_TEAM_ID)).installation).toHaveLength(1);

    await uninstallEvent(app(), OTHER_TEAM_ID, 'tokens_revoked', {
      botUserIds: [botUserOf(fakes.slack, OTHER_TEAM_ID)],
    });
    await app().waitForLog((line) => line.msg === REMOVED && line.reason === 'tokens_revoked');
    expect(await installationAndKey(OTHER_TEAM_ID)).toEqual({ installation: [], mintKey: [] });
  });
});
