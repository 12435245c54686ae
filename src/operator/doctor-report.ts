import { LogLevel, WebClient } from '@slack/web-api';
import type { Config } from '../platform/ops/config/config.js';
import { sealContext } from '../tenancy/installations/installation-store.js';
import { INSTALL_PATH } from '../tenancy/installations/oauth-options.js';
import { createSecretScrubber } from '../platform/ops/telemetry/secret-scrubber.js';
import { mintKeySealContext } from '../tenancy/mint-accounts/mint-accounts.js';
import { OPERATOR_ACCOUNT, keyIdSecret, mintKeyId } from '../tenancy/mint-accounts/mint-call-recorder.js';
import { SecretBox } from '../platform/secrets/secret-box.js';
import { webClientOptions } from '../platform/slack/web-api/web-client-options.js';
import type { Store } from '../platform/store/store.js';
import { effectiveSettings, envDefaults } from '../tenancy/workspaces/settings-model.js';
import { configSecrets } from '../platform/ops/config/config.js';
import { checkDatabase } from '../tenancy/setup-checks/database-check.js';
import { PLAIN_NAMING, pass, type SetupItem } from '../tenancy/setup-checks/setup-items.js';
import {
  BOT_TOKEN_NOT_CHECKED,
  checkBotToken,
  checkHttpMode,
  checkSocketMode,
} from '../tenancy/setup-checks/slack-checks.js';
import { type MintAccountState, checkWorkspaceSetup } from '../tenancy/setup-checks/workspace-checks.js';

/** What `npm run doctor` found: the operator's items, then each workspace's. */
export interface DoctorReport {
  /** One line: the mode the configuration gives. */
  heading: string;
  operator: SetupItem[];
  workspaces: Array<{ title: string; items: SetupItem[] }>;
  /**
   * Whether the workspaces' items block too: in single-workspace mode the one workspace is the operator's;
   * in distribution mode each workspace's admins see and fix theirs on App Home.
   */
  workspacesBlock: boolean;
  /** Distribution mode: where installers add the app (PUBLIC_URL's /slack/install), when PUBLIC_URL is set. */
  installUrl?: string;
}

/** Runs every check of the setup the configuration describes, with what Slack and the database say now. */
export async function runDoctor(config: Config): Promise<DoctorReport> {
  const scrub = createSecretScrubber(configSecrets(config));
  const clientFor = (token: string) =>
    new WebClient(token, { ...webClientOptions(config.slack.apiUrl, { scrub }), logger: quiet });
  const distributed = config.distribution !== undefined;
  const heading = `${distributed ? 'distribution mode' : 'single-workspace mode'}, ${config.mode === 'socket' ? 'Socket Mode' : 'HTTP mode'}`;
  const { item: database, store } = await checkDatabase(config.store);
  try {
    const mode =
      config.mode === 'socket' && config.slack.appToken
        ? await checkSocketMode(clientFor(config.slack.appToken), config.slack.apiUrl)
        : await checkHttpMode(config.slack.publicUrl);
    const operator = [pass('configuration', 'Configuration: every variable the app needs is set'), database, mode];
    const workspaces = distributed
      ? await installedWorkspaces(config, store, clientFor)
      : [await operatorWorkspace(config, store, clientFor, mode.slackUnreachable === true)];
    const publicUrl = config.slack.publicUrl;
    // Only an address Slack would send people to (https): a wrong one is the mode check's to report.
    const installUrl =
      distributed && publicUrl?.startsWith('https://') ? new URL(INSTALL_PATH, publicUrl).href : undefined;
    return { heading, operator, workspaces, workspacesBlock: !distributed, ...(installUrl ? { installUrl } : {}) };
  } finally {
    await store?.close().catch(() => undefined);
  }
}

/** Single-workspace mode: the bot token's workspace, with the settings in force there. */
async function operatorWorkspace(
  config: Config,
  store: Store | undefined,
  clientFor: (token: string) => WebClient,
  slackUnreachable: boolean,
): Promise<{ title: string; items: SetupItem[] }> {
  const unnamed = 'The workspace (SLACK_BOT_TOKEN)';
  if (slackUnreachable) return { title: unnamed, items: [BOT_TOKEN_NOT_CHECKED] };
  const client = clientFor(config.slack.botToken ?? '');
  const { item, identity } = await checkBotToken(client, 'operator', config.slack.apiUrl);
  if (!identity) return { title: unnamed, items: [item] };
  const apiKey = config.mint.apiKey ?? '';
  const items = await checkWorkspaceSetup({
    client,
    settings: await settingsInForce(config, store, identity.teamId),
    place: config.settings.source,
    naming: PLAIN_NAMING,
    mint: async () => ({
      account: { kind: 'operator', keyId: mintKeyId(apiKey, keyIdSecret(config)) },
      last: await store?.mintCallOutcomes.get(OPERATOR_ACCOUNT).catch(() => undefined),
    }),
  });
  return { title: workspaceTitle(identity.teamName, identity.teamId), items: [item, ...items] };
}

/**
 * Distribution mode: each installation, with its own bot token (opened with SECRETS_KEYS) and the settings
 * its admins chose. An org-wide installation is checked for its token only (its workspaces' settings are
 * each their own, and seen on their App Home).
 */
async function installedWorkspaces(
  config: Config,
  store: Store | undefined,
  clientFor: (token: string) => WebClient,
): Promise<Array<{ title: string; items: SetupItem[] }>> {
  if (!store) return [];
  const box = new SecretBox(config.secretKeys);
  const found: Array<{ title: string; items: SetupItem[] }> = [];
  for (const installation of await store.installationRows.all()) {
    const title = workspaceTitle(
      teamName(installation.details),
      installation.teamId ?? installation.enterpriseId ?? installation.id,
    );
    let token: string;
    try {
      token = box.open(installation.sealed.botToken ?? '', sealContext(installation.id, 'botToken'));
    } catch {
      found.push({
        title,
        items: [
          {
            key: 'bot-token',
            state: 'fail',
            summary: 'Slack bot token: cannot be opened with any key of SECRETS_KEYS',
            fix: 'List every key it was sealed with in SECRETS_KEYS, or have the workspace install the app again.',
          },
        ],
      });
      continue;
    }
    const client = clientFor(token);
    const { item, identity } = await checkBotToken(client, 'workspace', config.slack.apiUrl);
    const teamId = installation.teamId;
    if (!identity || !teamId || installation.isEnterpriseInstall) {
      found.push({ title, items: [item] });
      continue;
    }
    const items = await checkWorkspaceSetup({
      client,
      settings: await settingsInForce(config, store, teamId),
      place: 'slack',
      naming: PLAIN_NAMING,
      mint: async () => {
        const account = await store.mintAccountRows.get(teamId);
        const state: MintAccountState = account
          ? { kind: 'connected', keyId: openedKeyId(box, account.sealedKey, teamId, keyIdSecret(config)) }
          : { kind: 'none' };
        return { account: state, last: await store.mintCallOutcomes.get(teamId) };
      },
    });
    found.push({ title, items: [item, ...items] });
  }
  return found;
}

/** The id of a workspace's sealed Mint key (undefined when no key of SECRETS_KEYS opens it). */
function openedKeyId(box: SecretBox, sealedKey: string, teamId: string, idKey: string | Buffer): string | undefined {
  try {
    return mintKeyId(box.open(sealedKey, mintKeySealContext(teamId)), idKey);
  } catch {
    return undefined;
  }
}

async function settingsInForce(config: Config, store: Store | undefined, teamId: string) {
  const envOnly = config.settings.source === 'env';
  const row = envOnly || !store ? undefined : await store.workspaceSettingsRows.get(teamId).catch(() => undefined);
  return effectiveSettings(envDefaults(config), teamId, row, envOnly).values;
}

function workspaceTitle(name: string | undefined, id: string): string {
  return name ? `Workspace ${name} (${id})` : `Workspace ${id}`;
}

function teamName(details: Record<string, unknown>): string | undefined {
  const team = details.team;
  if (team && typeof team === 'object' && 'name' in team && typeof team.name === 'string') return team.name;
  return undefined;
}

/** The Web API client's own log lines stay out of the report: each failure is an item already. */
const quiet = {
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
  setLevel: () => undefined,
  getLevel: () => LogLevel.ERROR,
  setName: () => undefined,
};
