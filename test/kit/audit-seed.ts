import SQLite from 'better-sqlite3';
import pg from 'pg';
import type { AuditLogTable } from '../../src/platform/store/tables.js';

const COLUMNS = ['id', 'at', 'actor_id', 'team_id', 'operation', 'inputs', 'outcome', 'detail'] as const;
const BATCH = 1_000;

/**
 * Writes `count` audit rows made by `row(i)` straight into an app's (migrated) database, in batches: for tests
 * that need a large or an old audit log (exports of 100,000 rows, retention), faster than the app's own writes.
 */
export async function seedAuditLog(
  databaseUrl: string,
  count: number,
  row: (i: number) => AuditLogTable,
): Promise<void> {
  if (databaseUrl.startsWith('file:')) {
    const db = new SQLite(databaseUrl.slice(5));
    try {
      db.pragma('busy_timeout = 5000');
      const insert = db.prepare(
        `insert into audit_log (${COLUMNS.join(', ')}) values (${COLUMNS.map(() => '?').join(', ')})`,
      );
      db.transaction(() => {
        for (let i = 0; i < count; i += 1) {
          const r = row(i);
          insert.run(...COLUMNS.map((c) => r[c]));
        }
      })();
      // A running app checkpoints its WAL every 1000 pages; one transaction of seeded rows would leave it all there.
      db.pragma('wal_checkpoint(TRUNCATE)');
    } finally {
      db.close();
    }
    return;
  }
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    for (let start = 0; start < count; start += BATCH) {
      const params: unknown[] = [];
      const tuples: string[] = [];
      for (let i = start; i < Math.min(count, start + BATCH); i += 1) {
        const r = row(i);
        tuples.push(`(${COLUMNS.map((c) => `$${params.push(r[c])}`).join(', ')})`);
      }
      await client.query(`insert into audit_log (${COLUMNS.join(', ')}) values ${tuples.join(', ')}`, params);
    }
    // Rows written over days have statistics by then (autovacuum analyzes a table that grew). Without them the
    // planner takes the just-filled table for empty and sorts the whole period for every page of an export
    // (about 0.1 s a page instead of 0.3 ms, a minute for 100,000 rows).
    await client.query('analyze audit_log');
  } finally {
    await client.end();
  }
}
