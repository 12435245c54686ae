import type { Installation, InstallationQuery, InstallationStore } from '@slack/bolt';
import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import { KeptRows } from '../../platform/changes/kept-rows.js';
import { SLACK_CALL_DEADLINE_MS } from '../../platform/slack/web-api/web-client-options.js';
import type { Logger } from '../../platform/ops/telemetry/create-logger.js';
import type { SecretBox } from '../../platform/secrets/secret-box.js';
import { installationId, type StoredInstallation } from '../../platform/store/installation-rows.js';
import type { Store } from '../../platform/store/store.js';

type TokenField = 'botToken' | 'botRefreshToken' | 'userToken' | 'userRefreshToken';
const TOKEN_FIELDS: readonly TokenField[] = ['botToken', 'botRefreshToken', 'userToken', 'userRefreshToken'];

/** What a sealed token is bound to: its installation and its column (a copy elsewhere does not open). */
export function sealContext(id: string, field: TokenField): string {
  return `installation ${id} ${field}`;
}

/** Slack's answer to the renewal of one token (oauth.v2.access with grant_type=refresh_token). */
export interface RenewedToken {
  token: string;
  refreshToken: string;
  /** Seconds from now until the new token expires. */
  expiresIn: number;
}

/** Renews one token with its refresh token at Slack, which takes each refresh token once. */
export type RenewToken = (refreshToken: string) => Promise<RenewedToken>;

/** A token that expires within two hours is renewed (Bolt's own rule, InstallProvider.authorize). */
const RENEWAL_WINDOW_SECONDS = 7_200;
/** Attempts at storing renewed tokens (the old refresh token is spent at Slack: they exist only in memory). */
const STORE_RENEWED_ATTEMPTS = 4;
/** The wait before each further attempt. */
const STORE_RENEWED_BACKOFF_MS = [250, 1_000, 3_000];
/**
 * How long one replica's claim on renewing an installation's tokens holds: past both Slack calls' deadlines
 * (the bot's token and the installer's, one after the other) and every attempt at storing them, so that no
 * other replica renews with a refresh token this one has spent.
 */
const RENEWAL_LEASE_MS = 2 * SLACK_CALL_DEADLINE_MS + 30_000;
/** How long a request waits for another replica's renewal of the same tokens (Slack's 3 s to ack come first). */
const RENEWAL_WAIT_MS = 2_000;
/** How often a waiting request looks at the stored tokens meanwhile. */
const RENEWAL_POLL_MS = 50;

type TokenOwner = 'bot' | 'user';

/** The tokens of the installation (its bot's, its installer's) that are to be renewed now. */
function dueForRenewal(installation: Installation, nowSeconds = Date.now() / 1000): TokenOwner[] {
  return (['bot', 'user'] as const).filter((owner) => {
    const tokens = installation[owner];
    return (
      !!tokens?.refreshToken &&
      tokens.expiresAt !== undefined &&
      tokens.expiresAt - nowSeconds <= RENEWAL_WINDOW_SECONDS
    );
  });
}

/** The refresh tokens as one value: what changes when anyone renews the installation's tokens (or reinstalls). */
function refreshTokensOf(installation: Installation): string {
  return JSON.stringify([installation.bot?.refreshToken ?? null, installation.user.refreshToken ?? null]);
}

/**
 * The installation as Bolt's authorize() gets it: a copy (Bolt changes what it is given), without the refresh
 * tokens and expiry times. Bolt would renew a token about to expire on its own, on each replica; the store
 * renews it once for all of them (fetchInstallation).
 */
function forBolt(installation: Installation): Installation {
  const copy = structuredClone(installation);
  delete copy.user.refreshToken;
  delete copy.user.expiresAt;
  if (copy.bot) {
    delete copy.bot.refreshToken;
    delete copy.bot.expiresAt;
  }
  return copy;
}

/** No installation for a request's workspace (not installed, or uninstalled): Bolt refuses the request. */
export class NoInstallationError extends Error {}

/**
 * Bolt's InstallationStore over the app's database: what the OAuth flow stores and what Bolt's authorize()
 * fetches for each request. Tokens are sealed before they are written and opened when read; the rest of the
 * installation is kept as Bolt gave it.
 *
 * With token rotation, a token about to expire is renewed here, not by Bolt: Slack takes each refresh token
 * once, so of several replicas (or requests) renewing the same installation at once all but one would be
 * refused with `invalid_refresh_token`, and so would their requests. One request per replica renews (the others
 * of that replica share it), and one replica of all: the one whose compare-and-set on the stored refresh
 * tokens takes the renewal's lease; the others wait for the renewed tokens in the database and use them.
 */
export class SqlInstallationStore implements InstallationStore {
  /**
   * Installations as read, by id; a row's updated_at is its version (tokens rotated, reinstalled). Requests are
   * authorized from what is kept (the database is read on a request only for a workspace not seen yet), and an
   * uninstall, a reinstall or a renewal on any replica is forgotten here when the change feed tells it.
   */
  private readonly kept: KeptRows<Installation>;
  /** The renewal under way on this replica, by installation: requests that come meanwhile share it. */
  private readonly renewals = new Map<string, Promise<Installation>>();

  /** Told after each installation is stored (see onStored). */
  private readonly storedListeners: Array<
    (stored: { id: string; enterpriseId: string | undefined; orgWide: boolean }) => void
  > = [];

  constructor(
    private readonly store: Store,
    private readonly box: SecretBox,
    private readonly logger: Logger,
    private readonly renewToken: RenewToken,
    /** How long a request waits for another replica's renewal; tests shorten it. */
    private readonly renewalWaitMs = RENEWAL_WAIT_MS,
  ) {
    this.kept = new KeptRows(
      {
        read: async (id) => {
          const stored = await this.store.installationRows.get(id);
          return stored && { value: this.opened(stored), version: stored.updatedAt.toISOString() };
        },
        versions: (ids) => this.store.installationRows.versions(ids),
      },
      { keepMissing: false }, // a workspace without one is refused, with a log line, each time
    ).follow(store.changes, 'installation');
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
    const sealed = this.sealed(id, installation);
    await this.store.installationRows.save({
      id,
      teamId: installation.team?.id,
      enterpriseId: installation.enterprise?.id,
      isEnterpriseInstall: installation.isEnterpriseInstall === true,
      installerId: installation.user.id,
      sealed,
      details: withoutSecrets(installation),
    });
    this.kept.forget(id);
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
        rotating: !!installation.bot?.refreshToken,
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
    if (dueForRenewal(installation).length === 0) return forBolt(installation);
    let renewal = this.renewals.get(id);
    if (!renewal) {
      renewal = this.renewOnce(id, installation).finally(() => this.renewals.delete(id));
      this.renewals.set(id, renewal);
    }
    return forBolt(await renewal);
  }

  /**
   * The installation with its tokens renewed, once for every replica: by this one when its compare-and-set on
   * the stored refresh tokens (still `seen`'s) takes the renewal's lease; otherwise by the replica that holds
   * it, whose renewed tokens this one waits for (a while) in the database.
   */
  private async renewOnce(id: string, seen: Installation): Promise<Installation> {
    const waitUntil = Date.now() + this.renewalWaitMs;
    for (;;) {
      const { stored, current } = await this.readStored(id);
      // Renewed meanwhile (by another replica, before this one's kept copy was checked), or reinstalled.
      if (refreshTokensOf(current) !== refreshTokensOf(seen) || dueForRenewal(current).length === 0) {
        this.kept.forget(id);
        return current;
      }
      if (await this.store.installationRows.claimRenewal(id, stored.sealed, RENEWAL_LEASE_MS))
        return this.renewClaimed(stored, current);
      if (Date.now() >= waitUntil) return this.unrenewed(id, current, 'another replica is renewing it');
      await sleep(RENEWAL_POLL_MS);
    }
  }

  /** The installation as stored now (its sealed form, and opened); gone, the request's authorization fails. */
  private async readStored(id: string): Promise<{ stored: StoredInstallation; current: Installation }> {
    const stored = await this.store.installationRows.get(id);
    if (!stored) throw new NoInstallationError(`no installation ${id}`);
    return { stored, current: this.opened(stored) };
  }

  /** Renews the due tokens at Slack under this replica's lease, and stores them (which ends the lease). */
  private async renewClaimed(stored: StoredInstallation, current: Installation): Promise<Installation> {
    const { id } = stored;
    const renewed = structuredClone(current);
    for (const owner of dueForRenewal(current)) {
      const tokens = renewed[owner];
      if (!tokens?.refreshToken) continue;
      try {
        const answer = await this.renewToken(tokens.refreshToken);
        tokens.token = answer.token;
        tokens.refreshToken = answer.refreshToken;
        tokens.expiresAt = Math.floor(Date.now() / 1000) + answer.expiresIn;
      } catch (error) {
        this.logger.warn({ installation: id, owner, err: error }, 'Slack did not renew a token');
      }
    }
    if (refreshTokensOf(renewed) === refreshTokensOf(current)) {
      // Nothing renewed: the lease goes (or lapses), and the next request, on any replica, tries again.
      await this.store.installationRows.releaseRenewal(id, stored.sealed).catch(() => undefined);
      return this.unrenewed(id, current, 'Slack did not renew it');
    }
    // What Slack renewed is stored even when another of its tokens was not: the old refresh token is spent.
    const saved = await this.storeRenewed(id, stored.sealed, renewed);
    this.kept.forget(id);
    if (!saved) {
      this.logger.warn({ installation: id }, 'reinstalled while its token was renewed: the newer tokens stand');
      return (await this.readStored(id)).current;
    }
    this.logger.info({ installation: id }, 'token renewed');
    return renewed;
  }

  /**
   * Stores renewed tokens, trying again from memory while the database fails (the old refresh token is spent:
   * lost, these would leave the installation with tokens Slack no longer renews). Within the lease.
   */
  private async storeRenewed(id: string, from: StoredInstallation['sealed'], renewed: Installation): Promise<boolean> {
    const sealed = this.sealed(id, renewed);
    const details = withoutSecrets(renewed);
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await this.store.installationRows.storeRenewed(id, from, sealed, details);
      } catch (error) {
        const backoff = STORE_RENEWED_BACKOFF_MS[attempt - 1];
        if (attempt >= STORE_RENEWED_ATTEMPTS || backoff === undefined) {
          this.logger.error(
            { installation: id, err: error, attempts: attempt },
            'renewed tokens could not be stored: the installation must be installed again if they expire',
          );
          throw error;
        }
        this.logger.warn({ installation: id, err: error, attempt }, 'renewed tokens not stored yet; trying again');
        await sleep(backoff);
      }
    }
  }

  /**
   * Tokens that could not be renewed now: the current ones work until they expire (the next request tries
   * again); an expired one fails the request's authorization, and this line says why.
   */
  private unrenewed(id: string, current: Installation, why: string): Installation {
    const nowSeconds = Date.now() / 1000;
    const expired = (['bot', 'user'] as const).some((owner) => {
      const tokens = current[owner];
      return !!tokens?.refreshToken && tokens.expiresAt !== undefined && tokens.expiresAt <= nowSeconds;
    });
    this.logger.warn({ installation: id, expired }, `token not renewed now: ${why}`);
    if (expired) throw new Error(`the token of installation ${id} expired and is not renewed (${why})`);
    return current;
  }

  async deleteInstallation(query: InstallationQuery<boolean>): Promise<void> {
    const id = installationId(query);
    if (!id) return;
    const deleted = await this.store.installationRows.delete(id);
    this.forgetDeleted(id);
    if (deleted) this.logger.info({ installation: id }, 'installation deleted');
  }

  /**
   * After the delete: a request read in between would otherwise keep the row it found. Its records of the
   * workspaces it served went with it: a reinstall lists them again (auth.teams.list).
   */
  private forgetDeleted(id: string): void {
    this.kept.forget(id);
  }

  /** Tells `listener` of each installation stored from now on (installed, installed again, renewed). */
  onStored(listener: (stored: { id: string; enterpriseId: string | undefined; orgWide: boolean }) => void): void {
    this.storedListeners.push(listener);
  }

  /**
   * Deletes the installation only if it is still the one read at `version` (see InstallationRows): an
   * uninstall decided on what it read never removes an installation made or renewed after that.
   */
  async deleteIfUnchanged(query: InstallationQuery<boolean>, version: Date): Promise<boolean> {
    const id = installationId(query);
    if (!id) return false;
    const deleted = await this.store.installationRows.deleteIfUnchanged(id, version);
    if (deleted) {
      this.forgetDeleted(id);
      this.logger.info({ installation: id }, 'installation deleted');
    }
    return deleted;
  }

  /** The installation's tokens, each sealed for its own row and column. */
  private sealed(id: string, installation: Installation): StoredInstallation['sealed'] {
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
    return sealed;
  }

  private opened(stored: StoredInstallation): Installation {
    const open = (field: TokenField) => {
      const sealed = stored.sealed[field];
      return sealed ? this.box.open(sealed, sealContext(stored.id, field)) : undefined;
    };
    const { bot, user, ...details } = storedDetails(stored.details);
    const botToken = open('botToken');
    const botRefreshToken = open('botRefreshToken');
    const userToken = open('userToken');
    const userRefreshToken = open('userRefreshToken');
    return {
      ...details,
      team: details.team,
      enterprise: details.enterprise,
      user: {
        ...user,
        id: user?.id ?? stored.installerId,
        scopes: user?.scopes,
        token: userToken,
        ...(userRefreshToken ? { refreshToken: userRefreshToken } : {}),
      },
      ...(bot && botToken
        ? { bot: { ...bot, token: botToken, ...(botRefreshToken ? { refreshToken: botRefreshToken } : {}) } }
        : {}),
    };
  }
}

const idAndName = z.object({ id: z.string(), name: z.string().optional() });

/** What withoutSecrets() keeps of Bolt's Installation, read back through its shape rather than trusted. */
const STORED_DETAILS = z.object({
  team: idAndName.optional(),
  enterprise: idAndName.optional(),
  user: z
    .object({ id: z.string(), scopes: z.array(z.string()).optional(), expiresAt: z.number().optional() })
    .optional(),
  bot: z
    .object({ id: z.string(), userId: z.string(), scopes: z.array(z.string()), expiresAt: z.number().optional() })
    .optional(),
  appId: z.string().optional(),
  tokenType: z.literal('bot').optional(),
  enterpriseUrl: z.string().optional(),
  isEnterpriseInstall: z.boolean().optional(),
  authVersion: z.enum(['v1', 'v2']).optional(),
  metadata: z.string().optional(),
});

/**
 * The stored details of an installation, as Bolt's Installation has them; a row whose details are not of that
 * shape (written by hand, or by another version) fails here, naming the field, rather than reaching Bolt.
 */
function storedDetails(details: Record<string, unknown>): z.output<typeof STORED_DETAILS> {
  const parsed = STORED_DETAILS.safeParse(details);
  if (!parsed.success) {
    const field = parsed.error.issues[0]?.path.join('.') ?? '';
    throw new Error(`a stored installation's details are not as Bolt wrote them (${field || 'the whole'})`);
  }
  return parsed.data;
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
