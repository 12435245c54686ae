import type { ExpressionBuilder, Kysely } from 'kysely';
import { type ChangeFeed, writeAndAnnounce } from '../changes/change-feed.js';
import { z } from 'zod';
import { databaseNow } from './database-now.js';
import { parseJson } from './stored-json.js';
import type { InstallationsTable, Tables } from './tables.js';

/** An installation as stored: its sealed tokens as they are (opening them is the caller's: secret-box.ts). */
export interface StoredInstallation {
  id: string;
  teamId: string | undefined;
  enterpriseId: string | undefined;
  isEnterpriseInstall: boolean;
  installerId: string;
  sealed: { botToken?: string; botRefreshToken?: string; userToken?: string; userRefreshToken?: string };
  /** The rest of the installation, without secrets (JSON-parsed). */
  details: Record<string, unknown>;
  installedAt: Date;
  /**
   * When its tokens were last written: installed, installed again, or renewed (by the database's clock). An
   * uninstall that Slack says happened before then is not about these tokens: Slack revokes an uninstalled
   * workspace's tokens, refresh token too, so only a new installation or a renewal of live tokens writes later.
   */
  updatedAt: Date;
}

export type NewInstallation = Omit<StoredInstallation, 'installedAt' | 'updatedAt'>;

/** The key of an installation: `E<enterprise>` for an org-wide install, `T<team>` for a workspace's. */
export function installationId(where: { teamId?: string; enterpriseId?: string; isEnterpriseInstall?: boolean }) {
  if (where.isEnterpriseInstall && where.enterpriseId) return `E${where.enterpriseId}`;
  if (where.teamId) return `T${where.teamId}`;
  return undefined;
}

/** Distribution mode's installations, one row per workspace or org-wide install (see migration 011). */
export class InstallationRows {
  constructor(
    private readonly db: Kysely<Tables>,
    private readonly engine: 'sqlite' | 'postgres',
    /** Every replica learns of a change to an installation, or to which workspaces an org-wide one serves. */
    private readonly changes: Pick<ChangeFeed, 'announce' | 'engine'>,
  ) {}

  /**
   * Writes the installation, replacing the one with its key (a reinstall, new scopes, rotated tokens) but
   * keeping its installer.
   */
  async save(installation: NewInstallation): Promise<void> {
    const row = {
      team_id: installation.teamId ?? null,
      enterprise_id: installation.enterpriseId ?? null,
      is_enterprise_install: installation.isEnterpriseInstall ? 1 : 0,
      ...tokenColumns(installation.sealed),
      details: JSON.stringify(installation.details),
      updated_at: databaseNow(this.engine),
      renewal_until: null, // new tokens: a renewal of the old ones under way can no longer store its own
    };
    await writeAndAnnounce(
      this.db,
      this.changes,
      (db) =>
        db
          .insertInto('installations')
          // The installer is who installed first: someone running "Add to Slack" again (new scopes, or anyone allowed
          // to add apps) does not become the installer, who may manage the workspace's Mint account.
          .values({
            id: installation.id,
            ...row,
            installer_id: installation.installerId,
            installed_at: databaseNow(this.engine),
          })
          .onConflict((oc) => oc.column('id').doUpdateSet(row))
          .execute(),
      () => ({ topic: 'installation', id: installation.id }),
    );
  }

  async get(id: string): Promise<StoredInstallation | undefined> {
    const row = await this.db.selectFrom('installations').selectAll().where('id', '=', id).executeTakeFirst();
    return row ? toStored(row) : undefined;
  }

  /** Every installation, oldest first (for resealing, and the operator's listing). */
  async all(): Promise<StoredInstallation[]> {
    const rows = await this.db.selectFrom('installations').selectAll().orderBy('installed_at').execute();
    return rows.map((row) => toStored(row));
  }

  /**
   * Replaces the sealed values of one installation (resealing with a newer key) if they are still `from`:
   * false when they changed meanwhile (a token rotated, a reinstall) or the installation is gone.
   */
  async replaceSealed(
    id: string,
    from: StoredInstallation['sealed'],
    sealed: StoredInstallation['sealed'],
  ): Promise<boolean> {
    const result = await this.db
      .updateTable('installations')
      .set(tokenColumns(sealed))
      .where('id', '=', id)
      .where((eb) =>
        eb.and(
          (['bot_token', 'bot_refresh_token', 'user_token', 'user_refresh_token'] as const).map((column, i) => {
            const value = [from.botToken, from.botRefreshToken, from.userToken, from.userRefreshToken][i];
            return value === undefined ? eb(column, 'is', null) : eb(column, '=', value);
          }),
        ),
      )
      // Never under a renewal: its compare-and-set on the refresh tokens as they were would fail, and the
      // renewed tokens (the old ones spent at Slack) would be lost. The next reseal takes the renewed ones.
      .where((eb) => eb.or([eb('renewal_until', 'is', null), eb('renewal_until', '<', databaseNow(this.engine))]))
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  /**
   * Token rotation: takes the lease on renewing this installation's tokens for `leaseMs`, if its refresh tokens
   * are still `from` (nobody renewed them meanwhile) and no other replica holds a lease now. True: this caller
   * renews them (once, for every replica), then stores them with `storeRenewed` or gives up with
   * `releaseRenewal`. Timed by the database's clock, the same for every replica.
   */
  async claimRenewal(id: string, from: StoredInstallation['sealed'], leaseMs: number): Promise<boolean> {
    const result = await this.db
      .updateTable('installations')
      .set({ renewal_until: databaseNow(this.engine, leaseMs) })
      .where('id', '=', id)
      .where((eb) => refreshTokensAre(eb, from))
      .where((eb) => eb.or([eb('renewal_until', 'is', null), eb('renewal_until', '<', databaseNow(this.engine))]))
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  /**
   * Stores renewed tokens (sealed) and the installation's new details (their expiry times) if the refresh
   * tokens are still `from`, and ends the lease: false when the installation changed meanwhile (reinstalled,
   * uninstalled), whose tokens then stand.
   */
  async storeRenewed(
    id: string,
    from: StoredInstallation['sealed'],
    sealed: StoredInstallation['sealed'],
    details: Record<string, unknown>,
  ): Promise<boolean> {
    return writeAndAnnounce(
      this.db,
      this.changes,
      async (db) => {
        const result = await db
          .updateTable('installations')
          .set({
            ...tokenColumns(sealed),
            details: JSON.stringify(details),
            updated_at: databaseNow(this.engine),
            renewal_until: null,
          })
          .where('id', '=', id)
          .where((eb) => refreshTokensAre(eb, from))
          .executeTakeFirst();
        return Number(result.numUpdatedRows) === 1;
      },
      (stored) => (stored ? { topic: 'installation', id } : undefined),
    );
  }

  /** A renewal that failed gives its lease up (if its tokens are still `from`): the next request tries again. */
  async releaseRenewal(id: string, from: StoredInstallation['sealed']): Promise<void> {
    await this.db
      .updateTable('installations')
      .set({ renewal_until: null })
      .where('id', '=', id)
      .where((eb) => refreshTokensAre(eb, from))
      .execute();
  }

  /** Deletes an installation and what it learnt of its workspaces; true when there was one. */
  async delete(id: string): Promise<boolean> {
    return writeAndAnnounce(
      this.db,
      this.changes,
      async (db) => {
        await db.deleteFrom('installation_teams').where('installation_id', '=', id).execute();
        await db.deleteFrom('installation_team_departures').where('installation_id', '=', id).execute();
        const result = await db.deleteFrom('installations').where('id', '=', id).executeTakeFirst();
        return Number(result.numDeletedRows) === 1;
      },
      (deleted) => (deleted ? { topic: 'installation', id } : undefined),
    );
  }

  /**
   * Deletes an installation (and what it learnt of its workspaces) only if it is still the one read at
   * `version` (its updatedAt): false when it was installed again or its tokens renewed meanwhile, or it is gone.
   */
  async deleteIfUnchanged(id: string, version: Date): Promise<boolean> {
    return this.db.transaction().execute(async (tx) => {
      const result = await tx
        .deleteFrom('installations')
        .where('id', '=', id)
        .where('updated_at', '=', version.toISOString())
        .executeTakeFirst();
      if (Number(result.numDeletedRows) !== 1) return false;
      await tx.deleteFrom('installation_teams').where('installation_id', '=', id).execute();
      await tx.deleteFrom('installation_team_departures').where('installation_id', '=', id).execute();
      await this.changes.announce(tx, { topic: 'installation', id });
      return true;
    });
  }

  /** The org-wide installations, with the version of each (its updated_at). */
  async orgWide(): Promise<Array<{ id: string; enterpriseId: string; version: string }>> {
    const rows = await this.db
      .selectFrom('installations')
      .select(['id', 'enterprise_id', 'updated_at'])
      .where('is_enterprise_install', '=', 1)
      .orderBy('id')
      .execute();
    return rows.flatMap((row) =>
      row.enterprise_id ? [{ id: row.id, enterpriseId: row.enterprise_id, version: row.updated_at }] : [],
    );
  }

  /** The `updated_at` of each of these installations that still exists (one query, for many replicas' caches). */
  async versions(ids: readonly string[]): Promise<Map<string, string>> {
    if (ids.length === 0) return new Map();
    const rows = await this.db
      .selectFrom('installations')
      .select(['id', 'updated_at'])
      .where('id', 'in', ids)
      .execute();
    return new Map(rows.map((row) => [row.id, new Date(row.updated_at).toISOString()]));
  }

  /** Whether an installation with this key exists. */
  async exists(id: string): Promise<boolean> {
    const row = await this.db.selectFrom('installations').select('id').where('id', '=', id).executeTakeFirst();
    return row !== undefined;
  }

  /**
   * Records that an org-wide installation serves a workspace, as Slack says (auth.teams.list,
   * team_access_granted), with the database's time as when it joined. A workspace recorded as another
   * installation's is never taken from it (only that installation's removal, or the workspace leaving it,
   * frees it): true when this call recorded it, false when it was recorded already (as this installation's or
   * another's).
   */
  async recordTeam(teamId: string, installationId: string): Promise<boolean> {
    const now = databaseNow(this.engine);
    return writeAndAnnounce(
      this.db,
      this.changes,
      async (db) => {
        const result = await db
          .insertInto('installation_teams')
          .values({ team_id: teamId, installation_id: installationId, seen_at: now, joined_at: now })
          .onConflict((oc) => oc.column('team_id').doNothing())
          .executeTakeFirst();
        return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
      },
      (recorded) => (recorded ? { topic: 'org-workspace', id: teamId } : undefined),
    );
  }

  /**
   * The org-wide installation known to serve a workspace, and since when (null: recorded before join times
   * were kept).
   */
  async membershipOf(teamId: string): Promise<{ installationId: string; joinedAt: Date | undefined } | undefined> {
    const row = await this.db
      .selectFrom('installation_teams')
      .select(['installation_id', 'joined_at'])
      .where('team_id', '=', teamId)
      .executeTakeFirst();
    return (
      row && { installationId: row.installation_id, joinedAt: row.joined_at ? new Date(row.joined_at) : undefined }
    );
  }

  /**
   * Forgets that an org-wide installation serves a workspace (the workspace left it at `leftAt`, as Slack
   * says), unless it joined after that (a late delivery of an earlier leave), and remembers when it left, so
   * that a join Slack says happened before then changes nothing. True when the record was removed. A record
   * naming another installation stays.
   */
  async forgetTeam(teamId: string, installationId: string, leftAt: Date): Promise<boolean> {
    const left = leftAt.toISOString();
    // Slack's event times are whole seconds: a join within the leave's second is not after it.
    const leftSecondEnd = new Date(Math.floor(leftAt.getTime() / 1000) * 1000 + 999).toISOString();
    return this.db.transaction().execute(async (tx) => {
      const result = await tx
        .deleteFrom('installation_teams')
        .where('team_id', '=', teamId)
        .where('installation_id', '=', installationId)
        .where((eb) => eb.or([eb('joined_at', 'is', null), eb('joined_at', '<=', leftSecondEnd)]))
        .executeTakeFirst();
      await tx
        .insertInto('installation_team_departures')
        .values({ team_id: teamId, installation_id: installationId, left_at: left })
        .onConflict((oc) =>
          oc
            .columns(['team_id', 'installation_id'])
            .doUpdateSet({ left_at: left })
            .where('installation_team_departures.left_at', '<', left),
        )
        .execute();
      const forgotten = Number(result.numDeletedRows) === 1;
      if (forgotten) await this.changes.announce(tx, { topic: 'org-workspace', id: teamId });
      return forgotten;
    });
  }

  /** When Slack last said the workspace left this org-wide installation, if it did. */
  async departedAt(teamId: string, installationId: string): Promise<Date | undefined> {
    const row = await this.db
      .selectFrom('installation_team_departures')
      .select('left_at')
      .where('team_id', '=', teamId)
      .where('installation_id', '=', installationId)
      .executeTakeFirst();
    return row ? new Date(row.left_at) : undefined;
  }

  /**
   * Forgets departures too old for a late join to be delivered after them (Slack's retries end within
   * minutes); returns how many. Workspaces leave rarely: one statement takes them all.
   */
  async pruneDepartures(keptMs: number): Promise<number> {
    const result = await this.db
      .deleteFrom('installation_team_departures')
      .where('left_at', '<', databaseNow(this.engine, -keptMs))
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  /** The org-wide installation known to serve a workspace, if any. */
  async installationOfTeam(teamId: string): Promise<string | undefined> {
    const row = await this.db
      .selectFrom('installation_teams')
      .select('installation_id')
      .where('team_id', '=', teamId)
      .executeTakeFirst();
    return row?.installation_id;
  }

  /** The workspaces an org-wide installation is known to serve. */
  async teamsOf(installationId: string): Promise<string[]> {
    const rows = await this.db
      .selectFrom('installation_teams')
      .select('team_id')
      .where('installation_id', '=', installationId)
      .execute();
    return rows.map((row) => row.team_id);
  }
}

/** The installation's refresh tokens are still these sealed values (none: still none). */
function refreshTokensAre(eb: ExpressionBuilder<Tables, 'installations'>, from: StoredInstallation['sealed']) {
  return eb.and([
    from.botRefreshToken === undefined
      ? eb('bot_refresh_token', 'is', null)
      : eb('bot_refresh_token', '=', from.botRefreshToken),
    from.userRefreshToken === undefined
      ? eb('user_refresh_token', 'is', null)
      : eb('user_refresh_token', '=', from.userRefreshToken),
  ]);
}

function toStored(row: InstallationsTable): StoredInstallation {
  const sealed: StoredInstallation['sealed'] = {};
  if (row.bot_token) sealed.botToken = row.bot_token;
  if (row.bot_refresh_token) sealed.botRefreshToken = row.bot_refresh_token;
  if (row.user_token) sealed.userToken = row.user_token;
  if (row.user_refresh_token) sealed.userRefreshToken = row.user_refresh_token;
  return {
    id: row.id,
    teamId: row.team_id ?? undefined,
    enterpriseId: row.enterprise_id ?? undefined,
    isEnterpriseInstall: Number(row.is_enterprise_install) === 1,
    installerId: row.installer_id,
    sealed,
    details: parseJson(row.details, z.record(z.string(), z.unknown())) ?? {},
    installedAt: new Date(row.installed_at),
    updatedAt: new Date(row.updated_at),
  };
}

/** The sealed tokens' columns (a token the installation does not have is null). */
function tokenColumns(sealed: StoredInstallation['sealed']) {
  return {
    bot_token: sealed.botToken ?? null,
    bot_refresh_token: sealed.botRefreshToken ?? null,
    user_token: sealed.userToken ?? null,
    user_refresh_token: sealed.userRefreshToken ?? null,
  };
}
