import type { Kysely } from 'kysely';
import { databaseNow } from './database-now.js';
import type { Tables } from './tables.js';

/**
 * A delivery is only ever repeated within minutes: a proxy's retry, a double click, or Slack's retries of an
 * event (three at most: at once, after about a minute, after about five minutes). A day is far beyond them.
 */
const KEPT_MS = 24 * 60 * 60 * 1000;

/**
 * Keys of work that must happen once whatever delivers it twice (the same form submission sent again by a
 * proxy, a button clicked twice, an event Slack sends again): the first to claim a key does the work, on any
 * replica.
 */
export class OnceKeys {
  private prunedAt = 0;

  constructor(
    private readonly db: Kysely<Tables>,
    private readonly engine: 'sqlite' | 'postgres',
  ) {}

  /**
   * True for the first caller with this key, false for every later one (here or on another replica).
   * `teamId`: the workspace it is claimed for (kept with the key; work of no workspace, an install, has none).
   */
  async claim(key: string, teamId?: string): Promise<boolean> {
    if (Date.now() - this.prunedAt > 60 * 60 * 1000) {
      this.prunedAt = Date.now(); // an hourly clean-up, by whichever claim comes first (this process's own pace)
      await this.prune();
    }
    const result = await this.db
      .insertInto('once_keys')
      .values({ key, team_id: teamId ?? null, claimed_at: databaseNow(this.engine) })
      .onConflict((oc) => oc.column('key').doNothing())
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
  }

  /** Forgets keys too old to be delivered again (by the database's clock, which wrote them); returns how many. */
  async prune(keptMs = KEPT_MS): Promise<number> {
    const result = await this.db
      .deleteFrom('once_keys')
      .where('claimed_at', '<', databaseNow(this.engine, -keptMs))
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
