import type { Installation, InstallationQuery, InstallationStore } from '@slack/bolt';
import { LRUCache } from 'lru-cache';
import { KeptRows } from '../lifecycle/kept-rows.js';
import type { Logger } from '../logging/create-logger.js';
import type { SecretBox } from '../secrets/secret-box.js';
import { installationId, type StoredInstallation } from '../store/installations.js';
import type { Store } from '../store/store.js';

/**
 * How often a replica checks, in one query, that the installations it keeps are unchanged. Requests are
 * authorized from what it keeps (the database is read on a request only for a workspace not seen yet), and an
 * uninstall or a reinstall on one replica reaches the others within this, plus the query.
 */
export const INSTALLATION_REVALIDATE_MS = 2_000;

type TokenField = 'botToken' | 'botRefreshToken' | 'userToken' | 'userRefreshToken';
const TOKEN_FIELDS: readonly TokenField[] = ['botToken', 'botRefreshToken', 'userToken', 'userRefreshToken'];

/** What a sealed token is bound to: its installation and its column (a copy elsewhere does not open). */
export function sealContext(id: string, field: TokenField): string {
  return `installation ${id} ${field}`;
}

/** Bolt renews a token that expires within two hours (InstallProvider.authorize). */
const RENEWAL_WINDOW_SECONDS = 7_200;
/** How long a request waits for another's renewal of the same token (Slack's 3 s to ack come first). */
const RENEWAL_WAIT_MS = 1_500;

/** Whether Bolt will renew this installation's bot token when it authorizes a request with it now. */
function renewsNow(installation: Installation): boolean {
  const { bot } = installation;
  return (
    !!bot?.refreshToken && bot.expiresAt !== undefined && bot.expiresAt - Date.now() / 1000 <= RENEWAL_WINDOW_SECONDS
  );
}

/** No installation for a request's workspace (not installed, or uninstalled): Bolt refuses the request. */
export class NoInstallationError extends Error {}

/**
 * Bolt's InstallationStore over the app's database: what the OAuth flow stores and what Bolt's authorize()
 * fetches for each request (and stores again when it rotates tokens). Tokens are sealed before they are
 * written and opened when read; the rest of the installation is kept as Bolt gave it.
 */
export class SqlInstallationStore implements InstallationStore {
  /** Installations as read, by id; a row's updated_at is its version (tokens rotated, reinstalled). */
  private readonly kept: KeptRows<Installation>;
  /**
   * Workspaces already recorded as served by an org-wide installation (`team id -> installation id`). A note
   * lapses after a while: an uninstall on another replica deletes the records, and a workspace's own
   * installation may go; the org's next request from it then records it again.
   */
  private readonly orgTeamsNoted = new LRUCache<string, string>({ max: 100_000, ttl: 60_000 });
  /**
   * Installations whose token is being renewed by a request of this replica, and how the others learn it is
   * stored: Slack takes a refresh token once, so requests that come meanwhile wait for the new token instead
   * of renewing too (their renewal would be refused, and so would they).
   */
  private readonly renewals = new Map<string, { stored: Promise<void>; done: () => void }>();

  /** Told after each installation is stored (see onStored). */
  private readonly storedListeners: Array<
    (stored: { id: string; enterpriseId: string | undefined; orgWide: boolean }) => void
  > = [];

  constructor(
    private readonly store: Store,
    private readonly box: SecretBox,
    private readonly logger: Logger,
  ) {
    this.kept = new KeptRows(
      {
        read: async (id) => {
          const stored = await this.store.installations.get(id);
          return stored && { value: this.opened(stored), version: stored.updatedAt.toISOString() };
        },
        versions: (ids) => this.store.installations.versions(ids),
      },
      { keepMissing: false }, // a workspace without one is refused, with a log line, each time
    );
  }

  async storeInstallation<AuthVersion extends 'v1' | 'v2'>(
    installation: Installation<AuthVersion, boolean>,
  ): Promise<void> {
    const id = installationId({
      teamId: installation.team?.id,
      enterpriseId: installation.enterprise?.id,
      isEnterpriseInstall: installation.isEnterpriseInstall === true,
    });
    if (!id) throw new Error('an installation with neither a team nor an enterprise');
    const plain: Partial<Record<TokenField, string>> = {
      botToken: installation.bot?.token,
      botRefreshToken: installation.bot?.refreshToken,
      userToken: installation.user.token,
      userRefreshToken: installation.user.refreshToken,
    };
    const sealed: StoredInstallation['sealed'] = {};
    for (const field of TOKEN_FIELDS) {
      const value = plain[field];
      if (value) sealed[field] = this.box.seal(value, sealContext(id, field));
    }
    await this.store.installations.save({
      id,
      teamId: installation.team?.id,
      enterpriseId: installation.enterprise?.id,
      isEnterpriseInstall: installation.isEnterpriseInstall === true,
      installerId: installation.user.id,
      sealed,
      details: withoutSecrets(installation),
    });
    this.kept.forget(id);
    this.renewed(id);
    const stored = {
      id,
      enterpriseId: installation.enterprise?.id,
      orgWide: installation.isEnterpriseInstall === true,
    };
    for (const listener of this.storedListeners) listener(stored);
    this.logger.info(
      {
        installation: id,
        enterpriseInstall: installation.isEnterpriseInstall === true,
        rotating: !!plain.botRefreshToken,
      },
      'installation stored',
    );
  }

  async fetchInstallation(query: InstallationQuery<boolean>): Promise<Installation<'v1' | 'v2', boolean>> {
    const id = installationId(query);
    const installation = id ? await this.kept.get(id) : undefined;
    if (!id || !installation) {
      // Bolt turns this into "authorization failed" and answers nothing: this line says why.
      this.logger.warn(
        { teamId: query.teamId, enterpriseId: query.enterpriseId, enterpriseInstall: query.isEnterpriseInstall },
        'request from a workspace without an installation: refused',
      );
      throw new NoInstallationError(`no installation for ${id ?? 'a request without a team'}`);
    }
    if (query.isEnterpriseInstall && query.teamId) await this.noteOrgTeam(query.teamId, id);
    if (!renewsNow(installation)) return structuredClone(installation); // Bolt changes what it is given when it rotates tokens
    const renewal = this.renewals.get(id);
    if (!renewal) {
      // This request's authorization renews the token (Bolt does, then stores it): the others wait for that.
      let done: () => void = () => undefined;
      const stored = new Promise<void>((resolve) => (done = resolve));
      this.renewals.set(id, { stored, done });
      setTimeout(() => this.renewed(id), RENEWAL_WAIT_MS * 2).unref(); // a renewal that failed: the next tries
      return structuredClone(installation);
    }
    await Promise.race([renewal.stored, new Promise((resolve) => setTimeout(resolve, RENEWAL_WAIT_MS).unref())]);
    return structuredClone((await this.kept.get(id)) ?? installation);
  }

  /** The renewal of an installation's token ended (stored, or given up on): requests waiting for it go on. */
  private renewed(id: string): void {
    const renewal = this.renewals.get(id);
    this.renewals.delete(id);
    renewal?.done();
  }

  async deleteInstallation(query: InstallationQuery<boolean>): Promise<void> {
    const id = installationId(query);
    if (!id) return;
    const deleted = await this.store.installations.delete(id);
    this.forgetDeleted(id);
    if (deleted) this.logger.info({ installation: id }, 'installation deleted');
  }

  /**
   * After the delete: a request read in between would otherwise keep the row it found. Its records of the
   * workspaces it served went with it: a reinstall records them again.
   */
  private forgetDeleted(id: string): void {
    this.kept.forget(id);
    for (const [team, noted] of this.orgTeamsNoted.entries()) if (noted === id) this.orgTeamsNoted.delete(team);
  }

  /** Tells `listener` of each installation stored from now on (installed, installed again, renewed). */
  onStored(listener: (stored: { id: string; enterpriseId: string | undefined; orgWide: boolean }) => void): void {
    this.storedListeners.push(listener);
  }

  /** A workspace left an org-wide installation: its next request from it (if any) records it again. */
  forgetOrgTeam(teamId: string): void {
    this.orgTeamsNoted.delete(teamId);
  }

  /**
   * Deletes the installation only if it is still the one read at `version` (see InstallationRows): an
   * uninstall decided on what it read never removes an installation made or renewed after that.
   */
  async deleteIfUnchanged(query: InstallationQuery<boolean>, version: Date): Promise<boolean> {
    const id = installationId(query);
    if (!id) return false;
    const deleted = await this.store.installations.deleteIfUnchanged(id, version);
    if (deleted) {
      this.forgetDeleted(id);
      this.logger.info({ installation: id }, 'installation deleted');
    }
    return deleted;
  }

  /** The check of the kept installations, as background work (see KeptRows). */
  start(): () => Promise<void> {
    return this.kept.start(INSTALLATION_REVALIDATE_MS, this.logger, 'installations');
  }

  /**
   * Background work finds a workspace's token from its team id alone: for a workspace of an org-wide install,
   * the first request from it records which installation serves it (once per process and workspace).
   */
  private async noteOrgTeam(teamId: string, id: string): Promise<void> {
    if (this.orgTeamsNoted.get(teamId) === id) return;
    // A workspace with an installation of its own is never recorded as the org's: a person of another
    // customer acting in the org's channels (Slack Connect) must not tie that customer's workspace to it.
    if (!(await this.store.installations.exists(installationId({ teamId }) ?? '')))
      await this.store.installations.noteTeam(teamId, id);
    this.orgTeamsNoted.set(teamId, id);
  }

  private opened(stored: StoredInstallation): Installation {
    const open = (field: TokenField) => {
      const sealed = stored.sealed[field];
      return sealed ? this.box.open(sealed, sealContext(stored.id, field)) : undefined;
    };
    const details = stored.details as Partial<Installation>;
    const botToken = open('botToken');
    const botRefreshToken = open('botRefreshToken');
    const userToken = open('userToken');
    const userRefreshToken = open('userRefreshToken');
    return {
      ...details,
      team: details.team,
      enterprise: details.enterprise,
      user: {
        ...(details.user ?? { id: stored.installerId, scopes: undefined }),
        token: userToken,
        ...(userRefreshToken ? { refreshToken: userRefreshToken } : {}),
      },
      ...(details.bot && botToken
        ? { bot: { ...details.bot, token: botToken, ...(botRefreshToken ? { refreshToken: botRefreshToken } : {}) } }
        : {}),
    };
  }
}

/**
 * The installation as Bolt gave it, minus its tokens and the incoming webhook (the app asks for none; its URL
 * would be a secret).
 */
function withoutSecrets(installation: Installation): Record<string, unknown> {
  const { bot, user, incomingWebhook: _webhook, ...rest } = installation;
  const { token: _userToken, refreshToken: _userRefresh, ...userRest } = user;
  const details: Record<string, unknown> = { ...rest, user: userRest };
  if (bot) {
    const { token: _botToken, refreshToken: _botRefresh, ...botRest } = bot;
    details.bot = botRest;
  }
  return details;
}
