import { type Kysely, sql } from 'kysely';
import { type AuditEntry, toEntry as toAuditEntry } from './audit-log.js';
import type { Tables } from './tables.js';

export interface AuditPeriod {
  /** Entries of this workspace only. */
  teamId: string;
  /** Entries at or after this time. */
  since: Date;
  /** And before this one. */
  until: Date;
  /** An operation name, or the start of one up to a dot: `customers.delete` takes `customers.delete.run` too. */
  operation?: string | undefined;
  /** Entries of this actor only. */
  actorId?: string | undefined;
}

/**
 * The audit log read in bulk (exports) and pruned (retention). Reads go page by page on (at, id), the order
 * entries are written in, so an export of any size holds one page in memory, on both engines alike (Kysely's
 * stream() on PostgreSQL would need pg-cursor); pruning deletes in batches, each a short transaction of its own.
 */
export class AuditLogPages {
  constructor(private readonly db: Kysely<Tables>) {}

  /**
   * The period's entries, oldest first, `pageSize` rows at a time: 500 rows are about 125 kB as entries usually
   * are, and at most about 2.5 MB of inputs and details (5,000 characters an entry), held a few times over while a
   * page becomes CSV, with two exports at once under `npm start`'s heap cap; an export of 100,000 entries takes 200
   * queries.
   */
  async *pages(period: AuditPeriod, pageSize = 500): AsyncGenerator<AuditEntry[]> {
    let after: { at: string; id: string } | undefined;
    for (;;) {
      const last = after;
      // After the first page the range starts at the last row read, so each page is one short index scan.
      let query = this.db
        .selectFrom('audit_log')
        .selectAll()
        .where('at', '>=', last ? last.at : period.since.toISOString())
        .where('at', '<', period.until.toISOString());
      if (last) query = query.where((eb) => eb(eb.refTuple('at', 'id'), '>', eb.tuple(last.at, last.id)));
      query = query.where('team_id', '=', period.teamId);
      if (period.actorId) query = query.where('actor_id', '=', period.actorId);
      const operation = period.operation;
      if (operation)
        query = query.where((eb) =>
          eb.or([
            eb('operation', '=', operation),
            sql<boolean>`operation like ${`${likeEscaped(operation)}.%`} escape '!'`,
          ]),
        );
      const rows = await query.orderBy('at').orderBy('id').limit(pageSize).execute();
      if (rows.length === 0) return;
      yield rows.map((row) => toAuditEntry(row));
      if (rows.length < pageSize) return;
      const tail = rows[rows.length - 1];
      if (tail) after = { at: tail.at, id: tail.id };
    }
  }

  /** The operation names a workspace's log holds, in name order: at most `limit` of them. */
  async operations(teamId: string, limit = 10): Promise<string[]> {
    const rows = await this.db
      .selectFrom('audit_log')
      .select('operation')
      .distinct()
      .where('team_id', '=', teamId)
      .orderBy('operation')
      .limit(limit)
      .execute();
    return rows.map((row) => row.operation);
  }

  /**
   * Deletes up to `batchSize` entries older than `before`, oldest first; returns how many. Call it again
   * until it returns less than the batch.
   */
  async pruneBatch(before: Date, batchSize: number): Promise<number> {
    const result = await this.db
      .deleteFrom('audit_log')
      .where('id', 'in', (eb) =>
        eb.selectFrom('audit_log').select('id').where('at', '<', before.toISOString()).orderBy('at').limit(batchSize),
      )
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}

/** An operation name for LIKE ... ESCAPE '!': its own %, _ and ! match only themselves. */
function likeEscaped(text: string): string {
  return text.replace(/[!%_]/g, (c) => `!${c}`);
}
