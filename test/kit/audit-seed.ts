import SQLite from 'better-sqlite3';
import pg from 'pg';
import { DELETION_ASKED_OPERATION } from '../../src/platform/store/deletion-requests.js';
import type { Store } from '../../src/platform/store/store.js';
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

/** What a deletion request is asked with, as its form would: the store's create input without the fixed parts. */
interface DeletionAsked {
  teamId: string;
  requesterId: string;
  customerIds: string[];
  approvers: { users: string[]; userGroups: string[] };
  approvalsNeeded?: number;
  ttlMs?: number;
}

/**
 * A deletion request asked through its form, with the audit entry and the History row the app writes with it, on
 * a store or inside one of its transactions: for History tests that need requests and who they were asked of.
 */
export async function askDeletion(
  store: Pick<Store, 'deletionRequests' | 'audit'>,
  asked: DeletionAsked,
): Promise<{ requestId: string; entryId: string }> {
  const request = await store.deletionRequests.create({
    duplicatesRemoved: 0,
    reason: 'r',
    ttlMs: 72 * 3_600_000,
    approvalsNeeded: 1,
    ...asked,
  });
  const entry = await store.audit.start({
    actorId: asked.requesterId,
    teamId: asked.teamId,
    operation: DELETION_ASKED_OPERATION,
    inputs: { requestId: request.id },
    detail: request.id,
    history: {
      kind: 'deletion',
      how: 'form',
      requestId: request.id,
      customerIds: request.customerIds,
      reason: 'r',
      context: undefined,
    },
  });
  return { requestId: request.id, entryId: entry.id };
}
