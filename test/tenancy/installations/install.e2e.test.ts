import { beforeEach, describe, expect, it } from 'vitest';
import type { FakeSlack } from '../../kit/fake-slack.js';
import {
  DISTRIBUTION_ENV,
  TEST_CLIENT_SECRET as CLIENT_SECRET,
  connectMintAccount,
  install,
  oauthApp,
} from '../../kit/workspaces.js';
import { useApp, useFakes } from '../../kit/fakes.js';
import { queryRows } from '../../kit/raw-sql.js';
import type { RunningApp } from '../../kit/running-app.js';
import { TEST_TEAM_ID, TEST_USER_ID } from '../../kit/slack-ids.js';
import { BrowserClient } from './browser-client.js';

/**
 * `/mintlink link` from a workspace (or a workspace of an org-wide install), signed as Slack signs it:
 * resolves with the views.open call, made with the token Bolt authorized the request with. The workspace's
 * Mint account is connected first, behind the app's back (without one, the command answers how to connect).
 */
async function linkCommand(app: RunningApp, slack: FakeSlack, where: { teamId: string; enterpriseId?: string }) {
  await connectMintAccount(app, where.teamId);
  const { fields } = await app.command('link', {
    team_id: where.teamId,
    ...(where.enterpriseId ? { enterprise_id: where.enterpriseId, is_enterprise_install: 'true' } : {}),
  });
  return slack.waitForCall('views.open', (c) => c.params.trigger_id === fields.trigger_id);
}

/** An event from a workspace (or an org-wide install), signed as Slack signs it. */
async function homeOpened(app: RunningApp, where: { teamId: string; enterpriseId?: string; orgWide?: boolean }) {
  const user = TEST_USER_ID;
  const body = {
    token: 'deprecated',
    team_id: where.teamId,
    ...(where.enterpriseId ? { enterprise_id: where.enterpriseId } : {}),
    api_app_id: 'A0DIST0001',
    type: 'event_callback',
    event_id: `Ev${Date.now()}${Math.floor(Math.random() * 1e6)}`,
    event_time: Math.floor(Date.now() / 1000),
    event: {
      type: 'app_home_opened',
      user,
      channel: `D${user.slice(1)}`,
      tab: 'home',
      event_ts: `${Date.now() / 1000}`,
    },
    authorizations: [
      {
        team_id: where.orgWide ? null : where.teamId,
        enterprise_id: where.enterpriseId ?? null,
        user_id: 'UBOT',
        is_bot: true,
        is_enterprise_install: where.orgWide === true,
      },
    ],
    is_ext_shared_channel: false,
  };
  const response = await app.postSigned('/slack/events', JSON.stringify(body), 'application/json');
  expect(response.status).toBe(200);
}

describe('distribution mode: Add to Slack', () => {
  const fakes = useFakes();
  const running = useApp(fakes, 'http', { env: DISTRIBUTION_ENV });
  const app = () => running.app;

  beforeEach(() => {
    fakes.slack.oauthApp = oauthApp(app());
    fakes.slack.nextInstall = { teamId: TEST_TEAM_ID, teamName: 'Acme & Co', userId: TEST_USER_ID };
  });

  async function installations() {
    return queryRows(app().env.DATABASE_URL ?? '', 'select * from installations order by id');
  }

  it('installs through Bolt’s OAuth flow, stores the token sealed, and authorizes the workspace’s requests with it', async () => {
    const { page, browser } = await install(app());
    expect(page.status).toBe(200);
    expect(page.html).toContain('Mintlink is installed');
    expect(page.html).toContain('Acme &#38; Co');
    expect(browser.visited[1]).toContain('/oauth/v2/authorize?');
    expect(browser.visited[1]).toContain('scope=commands%2Cchat%3Awrite');
    const exchange = fakes.slack.callsTo('oauth.v2.access');
    expect(exchange).toHaveLength(1);
    const token = [...fakes.slack.issuedTokens].find(([, issued]) => issued.teamId === TEST_TEAM_ID)?.[0] ?? '';
    expect(token).toMatch(/^xoxb-/);

    const rows = await installations();
    const row = rows.find((r) => r.id === `T${TEST_TEAM_ID}`);
    expect(row).toBeDefined();
    expect(row?.installer_id).toBe(TEST_USER_ID);
    expect(String(row?.bot_token)).toMatch(/^v1\.[0-9a-f]{8}\./);
    expect(JSON.stringify(rows)).not.toContain(token);

    const open = await linkCommand(app(), fakes.slack, { teamId: TEST_TEAM_ID });
    expect(open.token).toBe(token);
    expect(app().logs).not.toContain(token);
    expect(app().logs).not.toContain(CLIENT_SECRET);
  });

  it('refuses a request from a workspace with no installation, with one log line', async () => {
    await homeOpened(app(), { teamId: 'T0NOTINST1' });
    const logged = app().logs.length;
    await homeOpened(app(), { teamId: 'T0NOTINST2' });
    await app().waitForLog(
      (line) =>
        line.msg === 'request from a workspace without an installation: refused' && line.teamId === 'T0NOTINST2',
    );
    await app().waitForIdle();
    expect(fakes.slack.callsTo('views.publish')).toHaveLength(0);
    // One line says why; nothing at error level (it is not the app's failure).
    const lines = app()
      .logs.slice(logged)
      .split('\n')
      .filter((line) => /"level":"(warn|error|fatal)"/.test(line));
    expect(lines.map((line) => (JSON.parse(line) as { msg: string }).msg)).toEqual([
      'request from a workspace without an installation: refused',
    ]);
  });

  it('installs org-wide on Enterprise Grid and authorizes the org’s workspaces', async () => {
    fakes.slack.orgWorkspaces.set('E0GRID0001', [{ id: 'T0GRIDWS01', name: 'Grid workspace' }]);
    fakes.slack.nextInstall = {
      teamId: 'T0GRIDWS01',
      teamName: 'Grid workspace',
      enterprise: { id: 'E0GRID0001', name: 'Globex' },
      orgWide: true,
      userId: 'W0ORGADMIN',
    };
    const { page } = await install(app());
    await app().waitForLog((line) => line.msg === 'the org-wide installation’s workspaces listed from Slack');
    expect(page.html).toContain('the Globex organization');
    const row = (await installations()).find((r) => r.id === 'EE0GRID0001');
    expect(row?.is_enterprise_install).toBe(1);
    expect(row?.team_id).toBeNull();

    const open = await linkCommand(app(), fakes.slack, { teamId: 'T0GRIDWS01', enterpriseId: 'E0GRID0001' });
    expect(fakes.slack.issuedTokens.get(open.token ?? '')?.enterpriseId).toBe('E0GRID0001');
  });

  it('with token rotation, stores the refresh token sealed and renews a token about to expire', async () => {
    fakes.slack.oauthApp = { ...oauthApp(app(), true), expiresIn: 600 }; // within Bolt's 2-hour window
    fakes.slack.nextInstall = { teamId: 'T0ROTATE01', teamName: 'Rotating', userId: 'U0ROTATE01' };
    await install(app());
    const before = (await installations()).find((r) => r.id === 'TT0ROTATE01');
    expect(String(before?.bot_refresh_token)).toMatch(/^v1\./);
    const first = [...fakes.slack.issuedTokens].filter(([, i]) => i.teamId === 'T0ROTATE01').map(([t]) => t);
    expect(first).toHaveLength(1);

    const publish = await linkCommand(app(), fakes.slack, { teamId: 'T0ROTATE01' });
    const refresh = fakes.slack.callsTo('oauth.v2.access').filter((c) => c.params.grant_type === 'refresh_token');
    expect(refresh).toHaveLength(1);
    expect(publish.token).not.toBe(first[0]);
    expect(fakes.slack.issuedTokens.get(publish.token ?? '')?.teamId).toBe('T0ROTATE01');
    const after = (await installations()).find((r) => r.id === 'TT0ROTATE01');
    expect(after?.bot_token).not.toBe(before?.bot_token);
    expect(app().logs).not.toMatch(/xoxe-1-[0-9a-f]/);
  });

  it('a denied install shows a page that says so, and installs nothing', async () => {
    fakes.slack.nextInstall = { teamId: 'T0DENIED01', teamName: 'Denied', userId: TEST_USER_ID, deny: true };
    const { page } = await install(app());
    expect(page.html).toContain('Installation cancelled');
    expect(page.html).toContain('You chose not to allow Mintlink');
    expect(page.html).toContain('href="/slack/install"');
    expect((await installations()).some((r) => r.id === 'TT0DENIED01')).toBe(false);
  });

  it('a callback without a state, or with a forged one, gets a clear page and installs nothing', async () => {
    const browser = new BrowserClient();
    const missing = await browser.open(`${app().baseUrl}/slack/oauth_redirect?code=anything`);
    expect(missing.status).toBe(400);
    expect(missing.html).toContain('Installation not completed');
    expect(missing.html).not.toMatch(/Error|at .*\.js/);

    // A state the app did not sign, in the cookie too (an attacker controls both).
    const forged = `${Buffer.from(JSON.stringify({ o: { scopes: [] }, t: Date.now(), n: 'x' })).toString('base64url')}.AAAA`;
    browser.cookies.set(app().baseUrl, new Map([['slack-app-oauth-state', forged]]));
    const page = await browser.open(`${app().baseUrl}/slack/oauth_redirect?code=anything&state=${forged}`);
    expect(page.status).toBe(400);
    expect(page.html).toContain('is not one the app made');
    expect(fakes.slack.callsTo('oauth.v2.access')).toHaveLength(0);
  });

  it('a state used once does not work again, even with its cookie', async () => {
    fakes.slack.nextInstall = { teamId: 'T0REUSED01', teamName: 'Reused', userId: TEST_USER_ID };
    const { browser } = await install(app());
    const callback = browser.visited.find((url) => url.includes('/slack/oauth_redirect')) ?? '';
    const state = new URL(callback).searchParams.get('state') ?? '';
    await queryRows(app().env.DATABASE_URL ?? '', `delete from installations where id = 'TT0REUSED01'`);
    browser.cookies.set(app().baseUrl, new Map([['slack-app-oauth-state', state]]));
    const again = await browser.open(callback);
    expect(again.status).toBe(400);
    expect(again.html).toContain('already used');
    expect((await installations()).some((r) => r.id === 'TT0REUSED01')).toBe(false);
  });
});
