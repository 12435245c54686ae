import { z } from 'zod';
import type { Kysely } from 'kysely';
import { parseJson } from '../stored-json.js';
import { toEntry } from '../audit-log.js';
import type { Tables } from '../tables.js';
import type { HistoryKind, HistoryMade, HistoryRecord } from './entry.js';
import { historyRecord } from './entry.js';
import { writeHistory } from './write.js';

/*
 * The backfill's reading of the audit log written before History existed: which operations made something, and
 * what their inputs said, in every shape a version wrote. Only the backfill reads audit inputs; what the app
 * makes now is handed to its audit entry by the capability that makes it (see HistoryMade).
 */

/** The audit operations that made each kind, as the audit log written before History names them. */
export const BACKFILLED_OPERATIONS: Readonly<Record<string, HistoryKind>> = {
  'link.create': 'link',
  'wallet.create': 'wallet',
  'customers.delete.request': 'deletion',
  'bulk.run': 'bulk',
};

/** An audit entry as the backfill reads it. */
export interface BackfilledEntry {
  id: string;
  at: Date;
  actorId: string;
  teamId: string | undefined;
  operation: string;
  origin: string | undefined;
  inputs: Record<string, unknown>;
  outcome: string;
  detail: string | undefined;
}

const text = z.string().min(1).max(2_000);
const linkInputs = z.object({
  nftId: text.optional(),
  email: text.optional(),
  customerId: z.array(text).optional(),
  maxCheckoutQuantity: z.number().optional(),
  startDate: text.optional(),
  endDate: text.optional(),
  isActive: z.boolean().optional(),
  type: text.optional(),
  walletOptions: text.optional(),
});
const walletInputs = z.object({ userId: text.optional() });
/** The audit log shortens a long list to `{count, first}` (audit-log.ts): the backfill reads the request's own. */
const customerList = z.union([z.array(text), z.object({ count: z.number(), first: z.array(text) })]);
const deletionInputs = z.object({
  requestId: text,
  customerIds: customerList.optional(),
  reason: text.optional(),
  context: text.optional(),
});
const bulkInputs = z.object({
  jobId: text,
  kind: text.optional(),
  source: text.optional(),
  rows: z.number().optional(),
  valid: z.number().optional(),
  retryOf: text.optional(),
  defaults: z.object({ nftId: text.optional() }).loose().optional(),
});

/**
 * The history row an old audit entry made, or undefined when it makes none (another operation, no workspace, or
 * inputs of a shape no version wrote). `fullCustomerIds`: a deletion request's customers as the request keeps
 * them.
 */
export function backfilledHistory(
  entry: BackfilledEntry,
  fullCustomerIds?: readonly string[],
): HistoryRecord | undefined {
  const made = madeBy(entry, fullCustomerIds);
  return made ? historyRecord(entry, made) : undefined;
}

function madeBy(entry: BackfilledEntry, fullCustomerIds: readonly string[] | undefined): HistoryMade | undefined {
  const how = entry.origin?.startsWith('workflow') ? 'workflow' : 'form';
  switch (BACKFILLED_OPERATIONS[entry.operation]) {
    case 'link': {
      const inputs = linkInputs.safeParse(entry.inputs);
      return inputs.success ? { kind: 'link', how, link: inputs.data } : undefined;
    }
    case 'wallet': {
      const inputs = walletInputs.safeParse(entry.inputs);
      return inputs.success ? { kind: 'wallet', how, customerId: inputs.data.userId } : undefined;
    }
    case 'deletion': {
      const inputs = deletionInputs.safeParse(entry.inputs);
      if (!inputs.success) return undefined;
      const listed = inputs.data.customerIds;
      return {
        kind: 'deletion',
        how: how === 'form' && inputs.data.context !== undefined ? 'message' : how,
        requestId: inputs.data.requestId,
        customerIds: fullCustomerIds ?? (Array.isArray(listed) ? listed : (listed?.first ?? [])),
        reason: inputs.data.reason,
        context: inputs.data.context,
      };
    }
    case 'bulk': {
      const inputs = bulkInputs.safeParse(entry.inputs);
      if (!inputs.success) return undefined;
      const job = inputs.data;
      return {
        kind: 'bulk',
        job: {
          jobId: job.jobId,
          of: job.kind ?? '',
          source: job.source ?? '',
          rows: job.rows ?? 0,
          valid: job.valid ?? 0,
          retryOf: job.retryOf,
          nftId: job.defaults?.nftId,
        },
      };
    }
    case undefined:
      return undefined;
  }
}

/** Rows of the backfill read from the audit log at a time; each batch is one short transaction. */
export const BACKFILL_BATCH = 500;
const BACKFILL_NAME = 'audit-log';
const idsSchema = z.array(z.string());

/** Another replica moved the backfill's position during a batch: the batch is undone, and the next run goes on. */
class BackfillRaced extends Error {}

/** The one-time copy of the audit log's entries written before History existed into History's rows. */
export class HistoryBackfill {
  constructor(
    private readonly db: Kysely<Tables>,
    private readonly engine: 'sqlite' | 'postgres',
  ) {}

  /**
   * Copies one batch of the audit log's entries that made something (oldest first, after the last one copied)
   * into history, in one transaction with the new position; returns how many entries it read and whether the
   * copy is done. Rows already there (written live) are left as they are, so a batch run twice, or by two
   * replicas at once, copies each entry once. A deletion request's customers are read from the request itself
   * (the audit entry keeps only the first 20 of a long list).
   */
  async backfillBatch(batchSize = BACKFILL_BATCH): Promise<{ read: number; finished: boolean }> {
    return this.copyBatch(batchSize).catch((error: unknown) => {
      if (error instanceof BackfillRaced) return { read: 0, finished: false };
      throw error;
    });
  }

  private async copyBatch(batchSize: number): Promise<{ read: number; finished: boolean }> {
    return this.db.transaction().execute(async (tx) => {
      // The position is claimed for the batch: on PostgreSQL its row is locked until the batch commits, so a
      // second replica waits and then reads the position after it (SQLite runs one writing transaction at a
      // time). The row is made first, so even the first batch has a row to lock.
      await tx
        .insertInto('history_backfill')
        .values({ name: BACKFILL_NAME, after_at: null, after_id: null, copied: 0, finished_at: null })
        .onConflict((oc) => oc.column('name').doNothing())
        .execute();
      let read = tx.selectFrom('history_backfill').selectAll().where('name', '=', BACKFILL_NAME);
      if (this.engine === 'postgres') read = read.forUpdate();
      const state = await read.executeTakeFirst();
      if (state?.finished_at) return { read: 0, finished: true };
      let query = tx.selectFrom('audit_log').selectAll().where('operation', 'in', Object.keys(BACKFILLED_OPERATIONS));
      const after = state?.after_at && state.after_id ? { at: state.after_at, id: state.after_id } : undefined;
      if (after)
        query = query
          .where('at', '>=', after.at)
          .where((eb) => eb(eb.refTuple('at', 'id'), '>', eb.tuple(after.at, after.id)));
      const entries = await query.orderBy('at').orderBy('id').limit(batchSize).execute();
      const requestIds = entries.flatMap((e) =>
        BACKFILLED_OPERATIONS[e.operation] === 'deletion' && e.detail ? [e.detail] : [],
      );
      const customersOf = new Map<string, string[]>();
      if (requestIds.length > 0) {
        const requests = await tx
          .selectFrom('deletion_requests')
          .select(['id', 'customer_ids'])
          .where('id', 'in', requestIds)
          .execute();
        for (const r of requests) customersOf.set(r.id, parseJson(r.customer_ids, idsSchema) ?? []);
      }
      for (const entry of entries) {
        const made = backfilledHistory(toEntry(entry), entry.detail ? customersOf.get(entry.detail) : undefined);
        if (made) await writeHistory(tx, made, { ifAbsent: true });
      }
      const last = entries.at(-1);
      const finished = entries.length < batchSize;
      const position = {
        after_at: last?.at ?? state?.after_at ?? null,
        after_id: last?.id ?? state?.after_id ?? null,
        copied: (state?.copied ?? 0) + entries.length,
        finished_at: finished ? new Date().toISOString() : null,
      };
      // Compare-and-set as well: a position moved meanwhile (it cannot be, under the lock) undoes this batch.
      const moved = await tx
        .updateTable('history_backfill')
        .set(position)
        .where('name', '=', BACKFILL_NAME)
        .where('copied', '=', state?.copied ?? 0)
        .executeTakeFirst();
      if (Number(moved.numUpdatedRows) !== 1) throw new BackfillRaced();
      return { read: entries.length, finished };
    });
  }

  /** Whether the copy of the audit log is done. */
  async backfillFinished(): Promise<boolean> {
    const state = await this.db
      .selectFrom('history_backfill')
      .select('finished_at')
      .where('name', '=', BACKFILL_NAME)
      .executeTakeFirst();
    return Boolean(state?.finished_at);
  }
}
