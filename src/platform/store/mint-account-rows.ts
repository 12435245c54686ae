import type { Kysely } from 'kysely';
import { type ChangeFeed, writeAndAnnounce } from '../changes/change-feed.js';
import { databaseNow } from './database-now.js';
import type { MintAccountsTable, Tables } from './tables.js';

/** A workspace's Mint account as stored: its API key sealed (opening it is the caller's: secret-box.ts). */
export interface StoredMintAccount {
  teamId: string;
  sealedKey: string;
  /** The key's last four characters: all that is ever shown of it. */
  keyLast4: string;
  /** The service's base URL for this account, when the operator lets workspaces give one. */
  baseUrl: string | undefined;
  connectedBy: string;
  connectedAt: Date;
  /** When the service last refused the key (401/403) and with which status; undefined while it accepts it. */
  refused: { at: Date; status: number } | undefined;
}

export type NewMintAccount = Pick<StoredMintAccount, 'teamId' | 'sealedKey' | 'keyLast4' | 'baseUrl' | 'connectedBy'>;

/** Distribution mode's Mint accounts, one row per workspace (see migration 012). */
export class MintAccountRows {
  constructor(
    private readonly db: Kysely<Tables>,
    private readonly engine: 'sqlite' | 'postgres',
    /** Every replica learns of a change to a workspace's account (its key, its base URL, a refusal). */
    private readonly changes: Pick<ChangeFeed, 'announce' | 'engine'>,
  ) {}

  async get(teamId: string): Promise<StoredMintAccount | undefined> {
    const row = await this.db.selectFrom('mint_accounts').selectAll().where('team_id', '=', teamId).executeTakeFirst();
    return row ? toStored(row) : undefined;
  }

  /** A workspace's account with its version (see versions). */
  async getVersioned(teamId: string): Promise<{ value: StoredMintAccount; version: string } | undefined> {
    const row = await this.db.selectFrom('mint_accounts').selectAll().where('team_id', '=', teamId).executeTakeFirst();
    return row ? { value: toStored(row), version: accountVersion(row) } : undefined;
  }

  /**
   * The version of each of these workspaces' accounts that exists: what changes when its key is replaced or
   * resealed, its base URL changes, or the service refuses or takes it again (one query, for replicas' caches).
   */
  async versions(teamIds: readonly string[]): Promise<Map<string, string>> {
    if (teamIds.length === 0) return new Map();
    const rows = await this.db
      .selectFrom('mint_accounts')
      .select(['team_id', 'sealed_key', 'base_url', 'refused_at', 'refused_status', 'connected_at'])
      .where('team_id', 'in', teamIds)
      .execute();
    return new Map(rows.map((row) => [row.team_id, accountVersion(row)]));
  }

  /** Every account, by workspace (for resealing). */
  async all(): Promise<StoredMintAccount[]> {
    const rows = await this.db.selectFrom('mint_accounts').selectAll().orderBy('team_id').execute();
    return rows.map((row) => toStored(row));
  }

  /**
   * Connects a workspace's account, replacing the one it had; returns the replaced one. A new key starts
   * without a refusal: whether the service takes it is learnt from its first answer.
   */
  async save(account: NewMintAccount): Promise<StoredMintAccount | undefined> {
    const previous = await this.get(account.teamId);
    const row = {
      sealed_key: account.sealedKey,
      key_last4: account.keyLast4,
      base_url: account.baseUrl ?? null,
      connected_by: account.connectedBy,
      connected_at: databaseNow(this.engine),
      refused_at: null,
      refused_status: null,
    };
    await writeAndAnnounce(
      this.db,
      this.changes,
      (db) =>
        db
          .insertInto('mint_accounts')
          .values({ team_id: account.teamId, ...row })
          .onConflict((oc) => oc.column('team_id').doUpdateSet(row))
          .execute(),
      () => ({ topic: 'mint-account', id: account.teamId }),
    );
    return previous;
  }

  /** Removes a workspace's account; returns what it was (undefined: there was none). */
  async delete(teamId: string): Promise<StoredMintAccount | undefined> {
    const previous = await this.get(teamId);
    if (!previous) return undefined;
    const deleted = await writeAndAnnounce(
      this.db,
      this.changes,
      async (db) => {
        const result = await db.deleteFrom('mint_accounts').where('team_id', '=', teamId).executeTakeFirst();
        return Number(result.numDeletedRows) === 1;
      },
      (gone) => (gone ? { topic: 'mint-account', id: teamId } : undefined),
    );
    return deleted ? previous : undefined;
  }

  /**
   * Records that the service refused (`status` 401/403) or took (`status` undefined) the key sealed as
   * `sealedKey`; nothing when the account has another key by now (an answer to a key already replaced says
   * nothing of the new one). True when the row changed.
   */
  async noteRefusal(teamId: string, sealedKey: string, status: number | undefined): Promise<boolean> {
    return writeAndAnnounce(
      this.db,
      this.changes,
      async (db) => {
        let update = db
          .updateTable('mint_accounts')
          .set(
            status === undefined
              ? { refused_at: null, refused_status: null }
              : { refused_at: databaseNow(this.engine), refused_status: status },
          )
          .where('team_id', '=', teamId)
          .where('sealed_key', '=', sealedKey);
        if (status === undefined) update = update.where('refused_at', 'is not', null);
        const result = await update.executeTakeFirst();
        return Number(result.numUpdatedRows) === 1;
      },
      (changed) => (changed ? { topic: 'mint-account', id: teamId } : undefined),
    );
  }

  /**
   * Replaces the sealed key (resealing with a newer key of SECRETS_KEYS) if it is still `from`: false when it
   * changed meanwhile (replaced, removed).
   */
  async replaceSealed(teamId: string, from: string, sealedKey: string): Promise<boolean> {
    return writeAndAnnounce(
      this.db,
      this.changes,
      async (db) => {
        const result = await db
          .updateTable('mint_accounts')
          .set({ sealed_key: sealedKey })
          .where('team_id', '=', teamId)
          .where('sealed_key', '=', from)
          .executeTakeFirst();
        return Number(result.numUpdatedRows) === 1;
      },
      (resealed) => (resealed ? { topic: 'mint-account', id: teamId } : undefined),
    );
  }
}

function toStored(row: MintAccountsTable): StoredMintAccount {
  return {
    teamId: row.team_id,
    sealedKey: row.sealed_key,
    keyLast4: row.key_last4,
    baseUrl: row.base_url ?? undefined,
    connectedBy: row.connected_by,
    connectedAt: new Date(row.connected_at),
    refused:
      row.refused_at && row.refused_status !== null
        ? { at: new Date(row.refused_at), status: Number(row.refused_status) }
        : undefined,
  };
}

/** What tells one state of an account row from another (see versions). */
export function accountVersion(
  row: Pick<MintAccountsTable, 'sealed_key' | 'base_url' | 'refused_at' | 'refused_status' | 'connected_at'>,
): string {
  return [row.sealed_key, row.base_url, row.refused_at, row.refused_status, row.connected_at].join(' ');
}
