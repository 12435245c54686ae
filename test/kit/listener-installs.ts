import type { Installation } from '@slack/bolt';
import { WebClient } from '@slack/web-api';
import { authorizationUrl } from '../../src/tenancy/installations/oauth-options.js';
import { BOT_SCOPES } from '../../src/tenancy/installations/bot-scopes.js';
import { openStore } from '../../src/platform/store/store.js';
import type { StoredSetting } from '../../src/platform/store/workspace-settings-rows.js';
import type { FakeInstall, FakeOAuthApp, FakeSlack } from './fake-slack.js';
import type { Fakes } from './fakes.js';
import type { ListenerApp } from './listener-app.js';
import { sqliteDatabase, type TestDatabase } from './store-engines.js';
import { TEST_MINT_API_KEY } from './running-app.js';
import { TEST_USER_ID } from './slack-ids.js';
import { DISTRIBUTION_ENV, TEST_CLIENT_SECRET, connectMintAccount } from './workspaces.js';

/*
 * Distribution mode on the fast tier (test/kit/listener-app.ts): a workspace is installed by storing, in the
 * app's own installation store, the installation Bolt's OAuth flow builds from Slack's answers (a code from the
 * fake Slack's consent screen exchanged with oauth.v2.access, and auth.test). Bolt's authorize then reads it for
 * each request as it does in production. The flow itself over HTTP (pages, state, redirects) is tested end to
 * end in test/tenancy/installations.
 */

/** Where the fake's consent screen sends the installer back: nothing listens there, the code is read off it. */
const REDIRECT_URI = 'https://mintlink.test/slack/oauth_redirect';

/** The Slack app as the fake's OAuth endpoints know it, for an app on the fast tier. */
export function listenerOAuthApp(rotation = false): FakeOAuthApp {
  return {
    clientId: DISTRIBUTION_ENV.SLACK_CLIENT_ID,
    clientSecret: TEST_CLIENT_SECRET,
    appId: 'A0DIST0001',
    redirectUri: REDIRECT_URI,
    tokenRotation: rotation,
    expiresIn: 43_200,
  };
}

/**
 * Installs the app in a workspace as "Add to Slack" does (see above), and connects its Mint account (with the
 * mock service's key, unless `mintKey` is null: then it has none); resolves with the bot token Slack issued for
 * it (what every call the app makes for that workspace must carry).
 */
export async function installInProcess(
  app: ListenerApp,
  slack: FakeSlack,
  who: Partial<FakeInstall> & { teamId: string },
  mintKey: string | null = TEST_MINT_API_KEY,
): Promise<string> {
  slack.nextInstall = { teamName: `Workspace ${who.teamId}`, userId: TEST_USER_ID, ...who };
  const token = await installAsNext(app, slack);
  if (mintKey !== null) await connectMintAccount(app, who.teamId, mintKey, who.userId ?? TEST_USER_ID);
  return token;
}

/**
 * The fake Slack's `nextInstall` (a workspace, or an organization org-wide) installs the app as "Add to Slack"
 * does; resolves with the bot token Slack issued.
 */
export async function installAsNext(app: ListenerApp, slack: FakeSlack): Promise<string> {
  const installation = await installationFromSlack(slack, (slack.oauthApp ??= listenerOAuthApp()));
  await app.installations.storeInstallation(installation);
  const token = installation.bot?.token;
  if (!token) throw new Error('the installation has no bot token');
  return token;
}

/** The person allows the app on the consent screen: the code Slack redirects back with. */
async function consentCode(slack: FakeSlack, oauthApp: FakeOAuthApp): Promise<string> {
  const consent = new URL(authorizationUrl(slack.apiUrl));
  consent.searchParams.set('client_id', oauthApp.clientId);
  consent.searchParams.set('scope', BOT_SCOPES.join(','));
  consent.searchParams.set('redirect_uri', oauthApp.redirectUri);
  consent.searchParams.set('state', 'fast-tier');
  const answer = await slack.fetch(consent, { redirect: 'manual' });
  const code = new URL(answer.headers.get('location') ?? REDIRECT_URI).searchParams.get('code');
  if (!code) throw new Error(`the consent screen gave no code (${answer.status}: ${await answer.text()})`);
  return code;
}

/**
 * The installation as Bolt's InstallProvider.handleCallback builds it (OAuth v2) from oauth.v2.access and
 * auth.test: the team or the organization, the installer, the bot's token, scopes and ids, and with token
 * rotation its refresh token and expiry.
 */
async function installationFromSlack(slack: FakeSlack, oauthApp: FakeOAuthApp): Promise<Installation> {
  const client = new WebClient(undefined, { slackApiUrl: slack.apiUrl, retryConfig: { retries: 0 } });
  const access = await client.oauth.v2.access({
    code: await consentCode(slack, oauthApp),
    client_id: oauthApp.clientId,
    client_secret: oauthApp.clientSecret,
    redirect_uri: oauthApp.redirectUri,
  });
  const { access_token: token, bot_user_id: botUserId, scope } = access;
  if (!token || !botUserId || !scope || !access.authed_user?.id) throw new Error('oauth.v2.access gave no bot token');
  const identity = await client.auth.test({ token });
  const orgWide = access.is_enterprise_install === true;
  const expiresAt =
    access.refresh_token && access.expires_in !== undefined
      ? { refreshToken: access.refresh_token, expiresAt: Math.floor(Date.now() / 1000) + access.expires_in }
      : {};
  return {
    team: access.team?.id ? { id: access.team.id, ...(access.team.name ? { name: access.team.name } : {}) } : undefined,
    enterprise: access.enterprise?.id
      ? { id: access.enterprise.id, ...(access.enterprise.name ? { name: access.enterprise.name } : {}) }
      : undefined,
    user: { id: access.authed_user.id, token: undefined, scopes: undefined },
    bot: { scopes: scope.split(','), token, userId: botUserId, id: identity.bot_id ?? '', ...expiresAt },
    ...(access.token_type ? { tokenType: 'bot' as const } : {}),
    isEnterpriseInstall: orgWide,
    ...(access.app_id ? { appId: access.app_id } : {}),
    ...(orgWide && identity.url ? { enterpriseUrl: identity.url } : {}),
    authVersion: 'v2',
  };
}

/** Where a workspace's deletion requests go and who decides them. */
export interface WorkspaceApprovals {
  teamId: string;
  /** Who installs the app there (and, for a workspace set in Slack, who saved its settings). */
  userId?: string;
  channelId: string;
  approvers: string[];
  /** Hours before a thread reminder (a workspace set in Slack only). */
  remindAfterHours?: number;
}

/**
 * Two workspaces that installed the app (distribution mode, on the fast tier): `home` approves as the environment
 * says (APPROVAL_CHANNEL_ID, DELETION_APPROVERS), `other` as its admin set in Slack, stored before the app starts.
 * Resolves with the app, its database (drop it after) and each workspace's bot token.
 */
export async function startTwoWorkspaces(
  fakes: Fakes,
  home: WorkspaceApprovals,
  other: WorkspaceApprovals & { userId: string },
  env: Record<string, string | undefined> = {},
): Promise<{ app: ListenerApp; db: TestDatabase; tokens: Record<string, string> }> {
  const db = sqliteDatabase();
  const store = openStore(db.location);
  try {
    await store.migrate();
    const by = { by: other.userId, at: new Date().toISOString() };
    const settings: Record<string, StoredSetting> = {
      approvalChannelId: { value: other.channelId, ...by },
      approvers: { value: { users: other.approvers, userGroups: [] }, ...by },
    };
    if (other.remindAfterHours !== undefined) settings.remindAfterHours = { value: other.remindAfterHours, ...by };
    await store.workspaceSettingsRows.save(other.teamId, 0, settings, other.userId);
  } finally {
    await store.close();
  }
  const app = await fakes.startListenerApp({
    env: {
      ...DISTRIBUTION_ENV,
      DATABASE_URL: db.databaseUrl,
      APPROVAL_CHANNEL_ID: home.channelId,
      DELETION_APPROVERS: home.approvers.join(','),
      ...env,
    },
  });
  const tokens: Record<string, string> = {};
  tokens[home.teamId] = await installInProcess(app, fakes.slack, {
    teamId: home.teamId,
    ...(home.userId ? { userId: home.userId } : {}),
  });
  tokens[other.teamId] = await installInProcess(app, fakes.slack, { teamId: other.teamId, userId: other.userId });
  return { app, db, tokens };
}
