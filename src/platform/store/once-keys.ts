import type { Kysely } from 'kysely';
import { databaseNow } from './database-now.js';
import type { Job } from '../ops/lifecycle/scheduler.js';
import type { Logger } from '../ops/telemetry/create-logger.js';
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
  constructor(
    private readonly db: Kysely<Tables>,
    private readonly engine: 'sqlite' | 'postgres',
  ) {}

  /**
   * True for the first caller with this key, false for every later one (here or on another replica).
   * `teamId`: the workspace it is claimed for (kept with the key; work of no workspace, an install, has none).
   */
  async claim(key: string, teamId?: string): Promise<boolean> {
    const result = await this.db
      .insertInto('once_keys')
      .values({ key, team_id: teamId ?? null, claimed_at: databaseNow(this.engine) })
      .onConflict((oc) => oc.column('key').doNothing())
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
  }

  /**
   * Forgets keys too old to be delivered again (by the database's clock, which wrote them), `batchSize` at a
   * time so that no one statement holds the table long; returns how many.
   */
  async prune(keptMs = KEPT_MS, batchSize = 5_000): Promise<number> {
    let total = 0;
    for (;;) {
      const result = await this.db
        .deleteFrom('once_keys')
        .where('key', 'in', (eb) =>
          eb
            .selectFrom('once_keys')
            .select('key')
            .where('claimed_at', '<', databaseNow(this.engine, -keptMs))
            .limit(batchSize),
        )
        .executeTakeFirst();
      const deleted = Number(result.numDeletedRows);
      total += deleted;
      if (deleted < batchSize) return total;
    }
  }
}

/** The hourly clean-up of old keys: background work, never in a request's way. */
export function onceKeysPruneJob(onceKeys: OnceKeys, logger: Logger): Job {
  return {
    name: 'forget old once-keys',
    everyMs: 60 * 60 * 1000,
    run: () => onceKeys.prune(),
    failed: (error) => logger.warn({ err: error }, 'could not forget old once-keys; trying again in an hour'),
  };
}
