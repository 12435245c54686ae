import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import { expect, it } from 'vitest';
import { openDatabase } from '../../../src/platform/store/open-database.js';
import { SqliteFileTurns } from '../../../src/platform/store/sqlite-dialect.js';
import { sqliteDatabase } from '../../kit/store-engines.js';

/*
 * Replicas started in one test process share a database file through connections of one thread: better-sqlite3
 * waits out another connection's lock synchronously (busy_timeout, 5 s), blocking the event loop that the other
 * connection's transaction needs to end. The dialect makes them take turns instead.
 */
it('lets two connections of one process to one file, given the same turns, take turns, neither waiting out the busy timeout', async () => {
  const { location } = sqliteDatabase();
  const turns = new SqliteFileTurns();
  const first = openDatabase(location, undefined, turns);
  const second = openDatabase(location, undefined, turns);
  try {
    await sql`create table t (n integer)`.execute(first);
    const started = Date.now();
    const order: string[] = [];
    await Promise.all([
      first.transaction().execute(async (trx) => {
        await sql`insert into t values (1)`.execute(trx);
        await sleep(50); // the transaction stays open across an await, as the app's do
        await sql`insert into t values (2)`.execute(trx);
        order.push('first committed');
      }),
      (async () => {
        await sleep(10); // once the first transaction holds the write lock
        await second.transaction().execute(async (trx) => {
          order.push('second began');
          await sql`insert into t values (3)`.execute(trx);
        });
      })(),
    ]);
    expect(order).toEqual(['first committed', 'second began']);
    const { rows } = await sql<{ n: number }>`select n from t order by n`.execute(second);
    expect(rows.map((r) => r.n)).toEqual([1, 2, 3]);
    expect(Date.now() - started).toBeLessThan(2_500); // without turns: 5 s of busy_timeout, then SQLITE_BUSY
  } finally {
    await first.destroy();
    await second.destroy();
  }
});
