import { randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import { BrowserClient } from '../tenancy/installations/browser-client.js';
import type { FakeInstall, FakeOAuthApp, FakeSlack } from './fake-slack.js';
import { ListenerApp } from './listener-app.js';
import type { RunningApp } from './running-app.js';
export { inTeam } from './slack-payloads.js';
import { formBody } from './slack-payloads.js';
import { TEST_APP_ID, TEST_USER_ID } from './slack-ids.js';
import { TEST_MINT_API_KEY } from './running-app.js';
import { mintKeySealContext } from '../../src/tenancy/mint-accounts/mint-accounts.js';
import { lastFour } from '../../src/tenancy/mint-accounts/mint-key.js';
import { parseSecretKey, SecretBox } from '../../src/platform/secrets/secret-box.js';

/*
 * Distribution mode in tests: the app takes installs with "Add to Slack" (Bolt's OAuth flow against the fake
 * Slack), and requests are signed for one workspace or another.
 */

export const TEST_CLIENT_SECRET = 'client-secret-3f9a1c7e5b2d4f60';
export const TEST_STATE_SECRET = 'state-secret-0123456789abcdef0123456789abcdef';

/** The environment of distribution mode (no SLACK_BOT_TOKEN); one sealing key per test file. */
export const DISTRIBUTION_ENV = {
  SLACK_BOT_TOKEN: undefined,
  MINT_API_KEY: undefined, // each workspace connects its own account
  SLACK_CLIENT_ID: '1111111111.2222222222',
  SLACK_CLIENT_SECRET: TEST_CLIENT_SECRET,
  SLACK_STATE_SECRET: TEST_STATE_SECRET,
  SECRETS_KEYS: randomBytes(32).toString('base64'),
};

/** A second workspace: requests from it must never reach the first one's data. */
export const OTHER_TEAM_ID = 'T0OTHER002';
export const OTHER_USER_ID = 'U0OTHER002';

/** The Slack app as the fake's OAuth endpoints know it, redirecting to this running app. */
export function oauthApp(app: RunningApp, rotation = false): FakeOAuthApp {
  return {
    clientId: DISTRIBUTION_ENV.SLACK_CLIENT_ID,
    clientSecret: TEST_CLIENT_SECRET,
    appId: 'A0DIST0001',
    redirectUri: `${app.baseUrl}/slack/oauth_redirect`,
    tokenRotation: rotation,
    expiresIn: 43_200,
  };
}

/** Opens /slack/install and follows "Add to Slack" through the fake consent screen back to the app. */
export async function install(app: RunningApp, browser = new BrowserClient()) {
  const landing = await browser.open(`${app.baseUrl}/slack/install`);
  expect(landing.status).toBe(200);
  expect(landing.html).toContain('Add Mintlink to your Slack workspace');
  const page = await browser.open(BrowserClient.link(landing.html, 'Add to Slack'));
  return { page, browser };
}

/**
 * Installs the app in a workspace through the whole OAuth flow, and connects its Mint account (with the mock
 * service's key, unless `mintKey` is null: then it has none); resolves with the bot token Slack issued for it
 * (what every call the app makes for that workspace must carry).
 */
export async function installWorkspace(
  app: RunningApp,
  slack: FakeSlack,
  who: Partial<FakeInstall> & { teamId: string },
  mintKey: string | null = TEST_MINT_API_KEY,
): Promise<string> {
  slack.oauthApp ??= oauthApp(app);
  slack.nextInstall = { teamName: `Workspace ${who.teamId}`, userId: TEST_USER_ID, ...who };
  const { page } = await install(app);
  expect(page.html).toContain('Mintlink is installed');
  if (mintKey !== null) await connectMintAccount(app, who.teamId, mintKey, who.userId ?? TEST_USER_ID);
  return botTokenOf(slack, who.teamId);
}

/**
 * A workspace's Mint account connected behind the app's back, sealed as the app seals a key an admin enters
 * (the connect form itself is tested in test/capabilities/mint-account).
 */
export async function connectMintAccount(
  app: Pick<RunningApp, 'env' | 'openStore'>,
  teamId: string,
  mintKey = TEST_MINT_API_KEY,
  connectedBy = TEST_USER_ID,
): Promise<void> {
  const box = new SecretBox((app.env.SECRETS_KEYS ?? '').split(',').flatMap((k) => parseSecretKey(k) ?? []));
  const store = app.openStore();
  try {
    await store.mintAccountRows.save({
      teamId,
      sealedKey: box.seal(mintKey, mintKeySealContext(teamId)),
      keyLast4: lastFour(mintKey),
      baseUrl: undefined,
      connectedBy,
    });
  } finally {
    await store.close();
  }
}

/** The bot token the fake Slack issued to a workspace's installation (the newest, after a reinstall). */
export function botTokenOf(slack: FakeSlack, teamId: string): string {
  const tokens = [...slack.issuedTokens].filter(([, issued]) => issued.teamId === teamId);
  const token = tokens.at(-1)?.[0];
  if (!token) throw new Error(`no token was issued to ${teamId}`);
  return token;
}

/** The bot user Slack created for a workspace's installation (the newest, after a reinstall). */
export function botUserOf(slack: FakeSlack, teamId: string): string {
  const issued = slack.issuedTokens.get(botTokenOf(slack, teamId));
  if (!issued) throw new Error(`no token was issued to ${teamId}`);
  return issued.botUserId;
}

export interface UninstallEventOptions {
  enterpriseId?: string;
  orgWide?: boolean;
  /** When Slack says it happened (seconds); now unless given. */
  eventTime?: number;
  /** `tokens_revoked`: the bot users it names. */
  botUserIds?: string[];
}

/** An Events API event id as Slack makes them (each event its own; a retry keeps its event's). */
export function newEventId(): string {
  return `Ev${Date.now()}${Math.floor(Math.random() * 1e6)}`;
}

/** The body of `app_uninstalled` (or `tokens_revoked` naming bot users) from a workspace, as Slack sends it. */
export function uninstallPayload(
  teamId: string,
  type: 'app_uninstalled' | 'tokens_revoked' = 'app_uninstalled',
  where: UninstallEventOptions = {},
): Record<string, unknown> {
  const eventTime = where.eventTime ?? Math.floor(Date.now() / 1000);
  const event =
    type === 'app_uninstalled'
      ? { type, event_ts: `${eventTime}.000100` }
      : { type, tokens: { oauth: [], bot: where.botUserIds ?? ['U0BOT0001'] }, event_ts: `${eventTime}.000100` };
  return {
    token: 'deprecated',
    team_id: teamId,
    ...(where.enterpriseId ? { enterprise_id: where.enterpriseId } : {}),
    api_app_id: TEST_APP_ID,
    type: 'event_callback',
    event_id: newEventId(),
    event_time: eventTime,
    event,
    ...(where.orgWide ? { is_enterprise_install: true } : {}),
    authorizations: [
      {
        team_id: where.orgWide ? null : teamId,
        enterprise_id: where.enterpriseId ?? null,
        user_id: 'U0BOT0001',
        is_bot: true,
        is_enterprise_install: where.orgWide === true,
      },
    ],
  };
}

/**
 * An event of an org-wide installation about some of its organization's workspaces (`team_access_revoked`,
 * `team_access_granted`), as Slack sends it: no team in the envelope, the organization's authorization; it
 * happened at `eventTime` (seconds), now unless given.
 */
export function orgWorkspacesPayload(
  type: 'team_access_revoked' | 'team_access_granted',
  enterpriseId: string,
  teamIds: string[],
  eventTime = Math.floor(Date.now() / 1000),
): Record<string, unknown> {
  return {
    token: 'deprecated',
    team_id: null,
    enterprise_id: enterpriseId,
    api_app_id: TEST_APP_ID,
    type: 'event_callback',
    event_id: newEventId(),
    event_time: eventTime,
    event: { type, team_ids: teamIds, event_ts: `${eventTime}.000200` },
    is_enterprise_install: true,
    authorizations: [
      { team_id: null, enterprise_id: enterpriseId, user_id: 'U0BOT0001', is_bot: true, is_enterprise_install: true },
    ],
  };
}

/** An app Slack's requests reach: over signed HTTP or Socket Mode (RunningApp), or Bolt's receiver (ListenerApp). */
export type SlackFacingApp = RunningApp | ListenerApp;

/**
 * Delivers an Events API body as Slack sends it: signed over HTTP, or to the receiver on the fast tier; with
 * `retryNum`, as Slack's retry of it (over HTTP the `x-slack-retry-num` and `x-slack-retry-reason` headers).
 */
export async function deliverEvent(
  app: SlackFacingApp,
  body: Record<string, unknown>,
  retryNum?: number,
): Promise<void> {
  if (app instanceof ListenerApp) return app.deliverEvent(body, retryNum);
  const response = await app.postSigned(
    '/slack/events',
    JSON.stringify(body),
    'application/json',
    retryNum === undefined ? {} : { retryNum },
  );
  expect(response.status).toBe(200);
}

/** `app_uninstalled` (or `tokens_revoked` naming bot users) from a workspace, signed; resolves with its body. */
export async function uninstallEvent(
  app: SlackFacingApp,
  teamId: string,
  type: 'app_uninstalled' | 'tokens_revoked' = 'app_uninstalled',
  where: UninstallEventOptions = {},
): Promise<Record<string, unknown>> {
  const body = uninstallPayload(teamId, type, where);
  await deliverEvent(app, body);
  return body;
}

/**
 * A click by `userId` of workspace `teamId` on a button (`actionId`, one nobody listens to unless given) of an
 * org-wide installation's message (its payload has no team: Slack names the user's own team in user.team_id),
 * as Slack sends it (signed over HTTP); resolves once handled, with the click's response_url.
 */
export async function orgInstallClick(
  app: SlackFacingApp,
  slack: FakeSlack,
  where: { teamId: string; userId: string; enterpriseId: string; channelId: string; actionId?: string },
): Promise<string> {
  const click = {
    type: 'block_actions',
    user: { id: where.userId, username: 'u', name: 'u', team_id: where.teamId },
    api_app_id: TEST_APP_ID,
    token: 'deprecated-verification-token',
    container: { type: 'message', message_ts: '1700000000.000100', channel_id: where.channelId, is_ephemeral: false },
    trigger_id: slack.triggerId(),
    team: null,
    enterprise: { id: where.enterpriseId, name: 'Globex' },
    is_enterprise_install: true,
    channel: { id: where.channelId, name: 'shared' },
    response_url: slack.responseUrl(),
    actions: [
      { type: 'button', action_id: where.actionId ?? 'some_button', block_id: 'b', action_ts: `${Date.now() / 1000}` },
    ],
  };
  if (app instanceof ListenerApp) await app.interact(click);
  else {
    const sent = await app.postSigned(
      '/slack/events',
      formBody({ payload: JSON.stringify(click) }),
      'application/x-www-form-urlencoded',
    );
    expect(sent.status).toBe(200);
  }
  await app.waitForIdle();
  return click.response_url;
}
