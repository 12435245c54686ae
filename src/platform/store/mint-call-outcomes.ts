import type { Kysely } from 'kysely';
import type { Tables } from './tables.js';

/**
 * How a call to the Mint service ended, as far as the key goes: `accepted` (the service answered and took the
 * key, even if it refused the request itself), `refused` (401/403: the key), `unavailable` (no answer, a
 * timeout, or a 5xx: nothing learnt about the key).
 */
export type MintCallOutcome = 'accepted' | 'refused' | 'unavailable';

export interface StoredMintCallOutcome {
  /** A workspace's team id, or '' for the operator's account. */
  account: string;
  /** A digest of the key the call was made with (mintKeyId), never the key. */
  keyId: string;
  outcome: MintCallOutcome;
  /** The HTTP status, when the service answered. */
  status: number | undefined;
  at: Date;
}

/** The last real call of each Mint account (see migration 016). */
export class MintCallOutcomeRows {
  constructor(private readonly db: Kysely<Tables>) {}

  async get(account: string): Promise<StoredMintCallOutcome | undefined> {
    const row = await this.db
      .selectFrom('mint_call_outcomes')
      .selectAll()
      .where('account', '=', account)
      .executeTakeFirst();
    if (!row) return undefined;
    return {
      account: row.account,
      keyId: row.key_id,
      // eslint-disable-next-line @typescript-eslint/consistent-type-assertions -- a column this repository alone writes, from the same union
      outcome: row.outcome as MintCallOutcome,
      status: row.status ?? undefined,
      at: new Date(row.at),
    };
  }

  /** Records an account's last call, replacing what was known. */
  async save(outcome: StoredMintCallOutcome): Promise<void> {
    const row = {
      key_id: outcome.keyId,
      outcome: outcome.outcome,
      status: outcome.status ?? null,
      at: outcome.at.toISOString(),
    };
    await this.db
      .insertInto('mint_call_outcomes')
      .values({ account: outcome.account, ...row })
      .onConflict((oc) => oc.column('account').doUpdateSet(row))
      .execute();
  }

  /** Forgets an account's last call (its Mint account removed, or the app uninstalled from the workspace). */
  async delete(account: string): Promise<void> {
    await this.db.deleteFrom('mint_call_outcomes').where('account', '=', account).execute();
  }
}
