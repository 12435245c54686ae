import type { Selectable } from 'kysely';
import { unpackRows, type NewBulkRow } from './draft-rows.js';
import {
  BULK_JOB_STATUSES,
  BULK_ROW_STATUSES,
  noRows,
  toRow,
  type BulkRow,
  type BulkRowStatus,
  type JobSummary,
  type RowCounts,
} from './model.js';
import { JobScope } from './scope.js';
import type { BulkRowsTable } from '../tables.js';

/** Rows written per INSERT: well within both engines' limits on bound values. */
const INSERT_BATCH = 400;

/** A job's rows: written out of its draft at Start, counted, and read a page at a time (a draft's from its pack). */
export class BulkRowStore extends JobScope {
  /**
   * A started draft's packed rows written out as rows of the job, a batch at a time; held-back rows only when
   * chosen, and then counted in the job's total and valid rows.
   */
  protected async unpackDraft(id: string, includeHeld: boolean): Promise<void> {
    const draft = await this.db
      .selectFrom('bulk_drafts')
      .select('packed_rows')
      .where('job_id', '=', id)
      .executeTakeFirst();
    if (!draft) return; // its rows were stored row by row (a draft older than the bulk_drafts table)
    let batch: Array<Selectable<BulkRowsTable>> = [];
    const write = async () => {
      if (batch.length > 0) await this.db.insertInto('bulk_rows').values(batch).execute();
      batch = [];
    };
    const chosen = { total: 0, valid: 0 };
    for await (const row of unpackRows(draft.packed_rows)) {
      if (row.held) {
        if (!includeHeld) continue;
        chosen.total += 1;
        if (row.error === undefined) chosen.valid += 1;
      }
      batch.push(newRowValues(id, row));
      if (batch.length === INSERT_BATCH) await write();
    }
    await write();
    await this.db.deleteFrom('bulk_drafts').where('job_id', '=', id).execute();
    if (chosen.total > 0) {
      await this.db
        .updateTable('bulk_jobs')
        .set((eb) => ({
          total_rows: eb('total_rows', '+', chosen.total),
          valid_rows: eb('valid_rows', '+', chosen.valid),
        }))
        .where('id', '=', id)
        .execute();
    }
  }

  async counts(id: string): Promise<RowCounts> {
    const rows = await this.db
      .selectFrom('bulk_rows')
      .select((eb) => ['status', eb.fn.countAll<string | number>().as('n')])
      .where('job_id', 'in', this.ownJob(id))
      .groupBy('status')
      .execute();
    // eslint-disable-next-line @typescript-eslint/consistent-type-assertions -- the keys are exactly the statuses (Object.fromEntries types them as any string)
    const counts = Object.fromEntries(BULK_ROW_STATUSES.map((s) => [s, 0])) as RowCounts;
    for (const row of rows) counts[row.status] = Number(row.n);
    if (rows.length === 0) {
      // A draft's rows are packed: its job row has the counts.
      const draft = await this.db
        .selectFrom('bulk_jobs')
        .innerJoin('bulk_drafts', 'bulk_drafts.job_id', 'bulk_jobs.id')
        .select(['total_rows', 'valid_rows'])
        .where('bulk_jobs.id', 'in', this.ownJob(id))
        .executeTakeFirst();
      if (draft) {
        counts.pending = Number(draft.valid_rows);
        counts.invalid = Number(draft.total_rows) - Number(draft.valid_rows);
      }
    }
    return counts;
  }

  /**
   * The state and row counts of each of these jobs (of this repository's workspace), in one query: what a list
   * of jobs shows of each, read as `counts` reads one job's.
   */
  async summaries(ids: readonly string[]): Promise<Map<string, JobSummary>> {
    const found = new Map<string, JobSummary>();
    if (ids.length === 0) return found;
    const rows = await this.db
      .selectFrom('bulk_jobs')
      .leftJoin('bulk_rows', 'bulk_rows.job_id', 'bulk_jobs.id')
      .select((eb) => [
        'bulk_jobs.id as id',
        'bulk_jobs.status as jobStatus',
        'bulk_jobs.cancelled_by as cancelledBy',
        'bulk_jobs.total_rows as totalRows',
        'bulk_jobs.valid_rows as validRows',
        'bulk_rows.status as rowStatus',
        eb.fn.count<string | number>('bulk_rows.row_number').as('n'),
      ])
      .where('bulk_jobs.id', 'in', ids)
      .where((eb) => this.ownJobs(eb))
      .groupBy([
        'bulk_jobs.id',
        'bulk_jobs.status',
        'bulk_jobs.cancelled_by',
        'bulk_jobs.total_rows',
        'bulk_jobs.valid_rows',
        'bulk_rows.status',
      ])
      .execute();
    for (const row of rows) {
      let summary = found.get(row.id);
      if (!summary) {
        const status = BULK_JOB_STATUSES.find((s) => s === row.jobStatus) ?? 'done';
        summary = { status, cancelled: row.cancelledBy !== null, counts: noRows() };
        found.set(row.id, summary);
      }
      const rowStatus = BULK_ROW_STATUSES.find((s) => s === row.rowStatus);
      if (rowStatus) summary.counts[rowStatus] = Number(row.n);
      else if (summary.status === 'draft') {
        // A draft's rows are packed: its job row has the counts.
        summary.counts.pending = Number(row.validRows);
        summary.counts.invalid = Number(row.totalRows) - Number(row.validRows);
      }
    }
    return found;
  }

  /** Rows sent and settled since `since` (the job's recent rate). */
  async settledSince(id: string, since: Date): Promise<number> {
    const row = await this.db
      .selectFrom('bulk_rows')
      .select((eb) => eb.fn.countAll<string | number>().as('n'))
      .where('job_id', 'in', this.ownJob(id))
      .where('status', 'in', ['done', 'failed', 'unknown'])
      .where('finished_at', '>=', since.toISOString())
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  }

  /** A page of a job's rows in row order, after `afterRow`; `statuses` narrows it (say, the invalid ones). */
  async rows(id: string, options: RowPage = {}): Promise<BulkRow[]> {
    const draft = await this.db
      .selectFrom('bulk_drafts')
      .select('packed_rows')
      .where('job_id', 'in', this.ownJob(id))
      .executeTakeFirst();
    if (draft) return draftPage(id, draft.packed_rows, options);
    if (options.held) return []; // a started job's rows are all its own
    let query = this.db
      .selectFrom('bulk_rows')
      .selectAll()
      .where('job_id', 'in', this.ownJob(id))
      .where('row_number', '>', options.afterRow ?? 0);
    if (options.statuses?.length) query = query.where('status', 'in', options.statuses);
    const rows = await query
      .orderBy('row_number')
      .limit(options.limit ?? 500)
      .execute();
    return rows.map((row) => toRow(row));
  }
}

interface RowPage {
  afterRow?: number;
  limit?: number;
  statuses?: readonly BulkRowStatus[];
  /** A draft's held-back rows (see NewBulkRow.held) instead of its other rows. */
  held?: boolean;
}

/** A page of a draft's packed rows, read as `rows` reads a started job's. */
async function draftPage(id: string, packed: string, options: RowPage): Promise<BulkRow[]> {
  const page: BulkRow[] = [];
  const limit = options.limit ?? 500;
  if (limit <= 0) return page;
  for await (const row of unpackRows(packed)) {
    if ((row.held ?? false) !== (options.held ?? false)) continue;
    const values = newRowValues(id, row);
    if (values.row_number <= (options.afterRow ?? 0)) continue;
    if (options.statuses?.length && !options.statuses.includes(values.status)) continue;
    page.push(toRow(values));
    if (page.length === limit) break;
  }
  return page;
}

/** A checked row as stored: valid ones pending, the others invalid with their problem. */
function newRowValues(jobId: string, row: NewBulkRow): Selectable<BulkRowsTable> {
  return {
    job_id: jobId,
    row_number: row.rowNumber,
    status: row.error === undefined ? 'pending' : 'invalid',
    cells: JSON.stringify(row.cells),
    request: row.error === undefined ? JSON.stringify(row.request ?? {}) : null,
    error: row.error ?? null,
    result_url: null,
    claimed_by: null,
    claimed_at: null,
    finished_at: null,
  };
}
