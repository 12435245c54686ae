import type { Kysely } from 'kysely';
import type { Tables } from './tables.js';

/** A delivery is only ever repeated within minutes (a proxy's retry, a double click): a day is plenty. */
const KEPT_MS = 24 * 60 * 60 * 1000;

/**
 * Keys of work that must happen once whatever delivers it twice (the same form submission sent again by a
 * proxy, a button clicked twice): the first to claim a key does the work, on any replica.
 */
export class OnceKeys {
  private prunedAt = 0;

  constructor(private readonly db: Kysely<Tables>) {}

  /** True for the first caller with this key, false for every later one (here or on another replica). */
  async claim(key: string, now = new Date()): Promise<boolean> {
    if (now.getTime() - this.prunedAt > 60 * 60 * 1000) {
      this.prunedAt = now.getTime(); // an hourly clean-up, by whichever claim comes first
      await this.prune(now);
    }
    const result = await this.db
      .insertInto('once_keys')
      .values({ key, claimed_at: now.toISOString() })
      .onConflict((oc) => oc.column('key').doNothing())
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
  }

  /** Forgets keys too old to be delivered again; returns how many. */
  async prune(now = new Date()): Promise<number> {
    const result = await this.db
      .deleteFrom('once_keys')
      .where('claimed_at', '<', new Date(now.getTime() - KEPT_MS).toISOString())
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
