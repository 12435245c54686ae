import { sql, type Kysely } from 'kysely';
import { databaseNow } from '../database-now.js';
import { writeHistory } from '../history/write.js';
import { bulkRowHistory, type HistoryRecord } from '../history/entry.js';
import type { Tables } from '../tables.js';
import { toJob, toRow, type BulkJob, type BulkRow, type ClaimedRow, type RowOutcome, type TeamClaim } from './model.js';
import { BulkRowStore } from './rows.js';

/** Running jobs of one workspace looked at by one claim, oldest first (a claim stops at the first with rows). */
const JOBS_PER_CLAIM = 20;

/**
 * Claims and leases: a row is sent by the one process that claimed it and settled by it alone; a claim left
 * longer than its lease is judged by the database's clock. The finishing of a job and its progress message
 * are taken the same way, one process at a time.
 */
export class BulkClaims extends BulkRowStore {
  /**
   * Claims up to `limit` pending rows of a running job for `workerId` (pending -> sending), lowest row first,
   * whatever its workspace has in flight (the worker claims with claimNext, which keeps to the workspace's
   * limit). On PostgreSQL rows another process is claiming are skipped (FOR UPDATE SKIP LOCKED); on SQLite
   * the write lock makes the claim atomic. Either way the UPDATE checks the row is still pending: a row is
   * claimed once.
   */
  async claim(jobId: string, workerId: string, limit = 1): Promise<BulkRow[]> {
    return this.inTransaction((db) => this.claimRows(db, jobId, workerId, limit));
  }

  /**
   * Claims up to `limit` rows (1 by default) of this repository's workspace for `workerId`, from its oldest
   * running job that has rows left, in row order, such that the workspace never has more than `concurrency`
   * rows being sent (`sending`), by all processes together. The count and the claim are one transaction,
   * and on PostgreSQL claims for one workspace take turns (a transaction-scoped advisory lock): two
   * processes cannot both count the same free place. A process that finds the lock taken does not wait for
   * it: it is told the workspace has no room now, and comes back. (SQLite: one writer at a time anyway.)
   */
  async claimNext(workerId: string, options: { concurrency: number; limit?: number }): Promise<TeamClaim> {
    const teamId = this.requireTeam('a claim within a workspace’s limit');
    const none = (atLimit: boolean): TeamClaim => ({ rows: [], atLimit });
    return this.inTransaction(async (db) => {
      if (this.engine === 'postgres') {
        const key = `bulk-claim:${teamId}`;
        const lock = sql<{ locked: boolean }>`select pg_try_advisory_xact_lock(hashtext(${key})) as locked`;
        if (!(await lock.execute(db)).rows[0]?.locked) return none(true);
      }
      const inFlight = await db
        .selectFrom('bulk_rows')
        .innerJoin('bulk_jobs', 'bulk_jobs.id', 'bulk_rows.job_id')
        .select((eb) => eb.fn.countAll<string | number>().as('n'))
        .where('bulk_rows.status', '=', 'sending')
        .where('bulk_jobs.team_id', '=', teamId)
        .executeTakeFirst();
      let room = Math.min(options.limit ?? 1, options.concurrency - Number(inFlight?.n ?? 0));
      if (room <= 0) return none(true);
      const jobs = await db
        .selectFrom('bulk_jobs')
        .select(['id', 'kind'])
        .where('team_id', '=', teamId)
        .where('status', '=', 'running')
        .orderBy('created_at')
        .orderBy('id')
        .limit(JOBS_PER_CLAIM)
        .execute();
      const claimed: ClaimedRow[] = [];
      for (const job of jobs) {
        const rows = await this.claimRows(db, job.id, workerId, room);
        claimed.push(...rows.map((row) => ({ ...row, kind: job.kind })));
        room -= rows.length;
        if (room <= 0) break;
      }
      return { rows: claimed, atLimit: false };
    });
  }

  /** The claim itself, in the caller's transaction. */
  private async claimRows(db: Kysely<Tables>, jobId: string, workerId: string, limit: number): Promise<BulkRow[]> {
    // Two statements: PostgreSQL may run a LIMIT ... SKIP LOCKED subquery of an UPDATE more than once, each
    // time picking other rows, so the candidates are read first, then claimed.
    let candidates = db
      .selectFrom('bulk_rows')
      .select('row_number')
      .where('job_id', 'in', this.ownJob(jobId))
      .where('status', '=', 'pending')
      .orderBy('row_number')
      .limit(limit);
    if (this.engine === 'postgres') candidates = candidates.forUpdate().skipLocked();
    const numbers = (await candidates.execute()).map((r) => Number(r.row_number));
    if (numbers.length === 0) return [];
    const rows = await db
      .updateTable('bulk_rows')
      // The database's clock: the process that judges the claim stale later may run on another host.
      .set({ status: 'sending', claimed_by: workerId, claimed_at: databaseNow(this.engine) })
      .where('job_id', '=', jobId)
      .where('status', '=', 'pending')
      .where('row_number', 'in', numbers)
      .where((eb) =>
        eb.exists(
          eb
            .selectFrom('bulk_jobs')
            .select('bulk_jobs.id')
            .where('bulk_jobs.id', '=', jobId)
            .where('bulk_jobs.status', '=', 'running'),
        ),
      )
      .returningAll()
      .execute();
    return rows.map((row) => toRow(row)).sort((a, b) => a.rowNumber - b.rowNumber);
  }

  /**
   * Workspaces with running jobs, the one whose oldest running job is oldest first (jobs of no workspace, from
   * before workspaces were recorded, are given one when the app starts: they are not listed).
   */
  async runningTeams(limit = 1_000): Promise<string[]> {
    const rows = await this.db
      .selectFrom('bulk_jobs')
      .select('team_id')
      .where('status', '=', 'running')
      .where('team_id', 'is not', null)
      .where((eb) => this.ownJobs(eb))
      .groupBy('team_id')
      .orderBy((eb) => eb.fn.min('created_at'))
      .limit(limit)
      .execute();
    return rows.flatMap((r) => (r.team_id === null ? [] : [r.team_id]));
  }

  /**
   * sending -> done | failed | unknown, by the process that claimed the row. A row done is, in the same
   * transaction, a History row of its own: the link (or wallet) the job made, made by whoever started the job.
   */
  async settle(jobId: string, rowNumber: number, workerId: string, outcome: RowOutcome, now = new Date()) {
    // What History needs is read first, outside the transaction: none of it changes once a job is started, and
    // the transaction (which holds SQLite's one connection) is then only the writes.
    const made = outcome.status === 'done' ? await this.madeRow(jobId, rowNumber, outcome, now) : undefined;
    const write = async (db: Kysely<Tables>) => {
      const result = await db
        .updateTable('bulk_rows')
        .set({
          status: outcome.status,
          error: outcome.status === 'done' ? null : outcome.error,
          result_url: outcome.status === 'done' ? (outcome.resultUrl ?? null) : null,
          finished_at: now.toISOString(),
        })
        .where('job_id', 'in', this.ownJob(jobId))
        .where('row_number', '=', rowNumber)
        .where('status', '=', 'sending')
        .where('claimed_by', '=', workerId)
        .executeTakeFirst();
      const settled = Number(result.numUpdatedRows) === 1;
      // A row is settled once (the compare-and-set above); a History row there already is kept all the same.
      if (settled && made) await writeHistory(db, made, { ifAbsent: true });
      return settled;
    };
    // One statement needs no transaction of its own.
    return made ? this.inTransaction(write) : write(this.db);
  }

  /** The History row of a row made (none for a job of no workspace: History is by workspace). */
  private async madeRow(
    jobId: string,
    rowNumber: number,
    outcome: Extract<RowOutcome, { status: 'done' }>,
    at: Date,
  ): Promise<HistoryRecord | undefined> {
    const job = await this.db
      .selectFrom('bulk_jobs')
      .select(['team_id', 'requester_id', 'source_name'])
      .where('id', '=', jobId)
      .where((eb) => this.ownJobs(eb))
      .executeTakeFirst();
    if (!job?.team_id) return undefined;
    return bulkRowHistory({
      // Only its requester starts a job (see BulkJobs.start).
      job: { id: jobId, teamId: job.team_id, starterId: job.requester_id, sourceName: job.source_name },
      rowNumber,
      made: outcome.made,
      url: outcome.resultUrl,
      at,
    });
  }

  /** sending -> pending: the request was not sent (or the service refused it before doing anything). */
  async release(jobId: string, rowNumber: number, workerId: string): Promise<boolean> {
    const result = await this.db
      .updateTable('bulk_rows')
      .set({ status: 'pending', claimed_by: null, claimed_at: null })
      .where('job_id', 'in', this.ownJob(jobId))
      .where('row_number', '=', rowNumber)
      .where('status', '=', 'sending')
      .where('claimed_by', '=', workerId)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  /**
   * sending -> unknown for rows claimed longer than `leaseMs` ago (by the database's clock, which wrote the
   * claim): their process died or stalled after (perhaps) sending them, and a POST must not be repeated.
   * Returns the jobs concerned.
   */
  async markStaleUnknown(leaseMs: number, error: string): Promise<string[]> {
    let update = this.db
      .updateTable('bulk_rows')
      .set({ status: 'unknown', error, finished_at: databaseNow(this.engine) })
      .where('status', '=', 'sending')
      .where('claimed_at', '<', databaseNow(this.engine, -leaseMs));
    const { teamId } = this;
    if (teamId !== undefined)
      update = update.where('job_id', 'in', this.db.selectFrom('bulk_jobs').select('id').where('team_id', '=', teamId));
    const rows = await update.returning('job_id').execute();
    return [...new Set(rows.map((r) => r.job_id))];
  }

  /**
   * Takes on writing the results of a finishing job whose rows are all settled: one process at a time; if it
   * goes silent for longer than `leaseMs` (by the database's clock, which wrote the claim), another takes over.
   */
  async claimFinish(id: string, leaseMs: number): Promise<BulkJob | undefined> {
    const claimed = await this.db
      .updateTable('bulk_jobs')
      .set((eb) => ({
        finish_claimed_at: databaseNow(this.engine),
        finish_attempts: eb('finish_attempts', '+', 1),
      }))
      .where('id', '=', id)
      .where((eb) => this.ownJobs(eb))
      .where('status', '=', 'finishing')
      .where((eb) =>
        eb.or([eb('finish_claimed_at', 'is', null), eb('finish_claimed_at', '<', databaseNow(this.engine, -leaseMs))]),
      )
      .where((eb) =>
        eb.not(
          eb.exists(
            eb
              .selectFrom('bulk_rows')
              .select('bulk_rows.row_number')
              .where('bulk_rows.job_id', '=', id)
              .where('bulk_rows.status', '=', 'sending'),
          ),
        ),
      )
      // The job as this claim left it: its claim time is what complete() checks, whoever claims after.
      .returningAll()
      .executeTakeFirst();
    return claimed ? toJob(claimed) : undefined;
  }

  /**
   * The right to update the job's progress message now: at most once per `minGapMs`, whichever process asks
   * (a compare-and-set on the time of the last update). The times are the database's, so processes whose
   * clocks disagree still keep the gap.
   */
  async claimProgress(id: string, minGapMs: number): Promise<boolean> {
    const result = await this.db
      .updateTable('bulk_jobs')
      .set({ progress_at: databaseNow(this.engine) })
      .where('id', '=', id)
      .where((eb) => this.ownJobs(eb))
      .where((eb) =>
        eb.or([eb('progress_at', 'is', null), eb('progress_at', '<=', databaseNow(this.engine, -minGapMs))]),
      )
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }
}
