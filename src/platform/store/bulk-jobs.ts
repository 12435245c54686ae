import { randomInt } from 'node:crypto';
import {
  sql,
  type Expression,
  type ExpressionBuilder,
  type Kysely,
  type Selectable,
  type SqlBool,
  type Updateable,
} from 'kysely';
import { packRows, unpackRows, type NewBulkRow } from './bulk-draft-rows.js';
import { databaseNow } from './database-now.js';
import type { BulkJobsTable, BulkRowsTable, Tables } from './tables.js';

export type BulkKind = 'links' | 'wallets';

/**
 * draft -> running (Start, by the requester only) | deleted when never started;
 * running <-> paused; running | paused -> finishing (every row settled, or cancelled: the rows not yet sent
 * are cancelled); finishing -> done (the results file sent, or why it could not be).
 */
export type BulkJobStatus = 'draft' | 'running' | 'paused' | 'finishing' | 'done';

/**
 * invalid (never sent) | pending -> sending -> done | failed | unknown;  sending -> pending only when the
 * request was not sent (held back by the app, or refused by the service before doing anything);
 * pending -> cancelled. `unknown`: it was sent and its outcome was not recorded: never sent again by the app.
 */
export type BulkRowStatus = 'invalid' | 'pending' | 'sending' | 'done' | 'failed' | 'unknown' | 'cancelled';
export const BULK_ROW_STATUSES: readonly BulkRowStatus[] = [
  'invalid',
  'pending',
  'sending',
  'done',
  'failed',
  'unknown',
  'cancelled',
];

export interface BulkJob {
  id: string;
  teamId: string | undefined;
  requesterId: string;
  kind: BulkKind;
  status: BulkJobStatus;
  sourceName: string;
  columns: string[];
  defaults: Record<string, unknown>;
  totalRows: number;
  validRows: number;
  createdAt: Date;
  updatedAt: Date;
  startedAt: Date | undefined;
  finishedAt: Date | undefined;
  changedBy: string | undefined;
  note: string | undefined;
  cancelledBy: string | undefined;
  auditId: string | undefined;
  messageChannel: string | undefined;
  messageTs: string | undefined;
  progressAt: Date | undefined;
  progressDigest: string | undefined;
  finishClaimedAt: string | undefined;
  finishAttempts: number;
  resultsFileId: string | undefined;
  resultsNote: string | undefined;
  /** The job whose failed rows this one retries. */
  retryOf: string | undefined;
  /** The retry of this job's failed rows, once started: a job's failed rows are retried once. */
  retriedAs: string | undefined;
  /** A retry's draft: the rows held back unless the person chooses them at Start (see NewBulkRow.held). */
  heldRows: number;
}

export type { NewBulkRow };

export interface NewBulkJob {
  teamId: string | undefined;
  requesterId: string;
  kind: BulkKind;
  sourceName: string;
  columns: string[];
  defaults: Record<string, unknown>;
  /**
   * The job whose failed rows this draft retries. A requester has one unstarted retry of a job at a time:
   * creating another gives back the one there is.
   */
  retryOf?: string;
  /** Read once, as they come: a reader may stop part-way by throwing (the draft is then not stored). */
  rows: Iterable<NewBulkRow> | AsyncIterable<NewBulkRow>;
}

export interface DraftOptions {
  /** Keep only this many of the requester's drafts, this one included: the oldest others are deleted. */
  keepNewest?: number;
  /** Applied to the text of every row (the database's scrubber cannot see inside a packed draft). */
  scrub?: (text: string) => string;
}

/** A draft stored, and the requester's older drafts deleted to make room for it (newest first). */
export interface StoredDraft {
  job: BulkJob;
  dropped: BulkJob[];
}

/** What Start may choose: held-back rows (see NewBulkRow.held) are written out only with `includeHeld`. */
export interface StartOptions {
  includeHeld?: boolean;
  now?: Date;
}

export interface BulkRow {
  jobId: string;
  rowNumber: number;
  status: BulkRowStatus;
  cells: string[];
  request: unknown;
  error: string | undefined;
  resultUrl: string | undefined;
  claimedBy: string | undefined;
  claimedAt: Date | undefined;
  finishedAt: Date | undefined;
}

export type RowCounts = Record<BulkRowStatus, number>;

/** How a row that was sent ended. */
export type RowOutcome =
  { status: 'done'; resultUrl?: string | undefined } | { status: 'failed' | 'unknown'; error: string };

export type JobTransition = { won: true; job: BulkJob } | { won: false; job: BulkJob | undefined };

/** A job named by its id and its workspace (what background work needs to reach it through `inTeam`). */
export interface JobRef {
  id: string;
  teamId: string | undefined;
}

/** A row claimed for sending, with what the sender needs of its job. */
export interface ClaimedRow extends BulkRow {
  kind: BulkKind;
}

/**
 * What a workspace's claim gave: the rows, or, when none, whether the workspace had no room (its limit of
 * rows in flight reached, or another process claiming for it at that moment) rather than nothing to send.
 */
export interface TeamClaim {
  rows: ClaimedRow[];
  atLimit: boolean;
}

/** The person recorded for what the app does by itself (pauses, stops). */
export const SYSTEM_ACTOR = 'system';

/** Rows written per INSERT: well within both engines' limits on bound values. */
const INSERT_BATCH = 400;

/** Running jobs of one workspace looked at by one claim, oldest first (a claim stops at the first with rows). */
const JOBS_PER_CLAIM = 20;

/**
 * Bulk jobs and their rows. Every change of a job's or a row's status is a compare-and-set (UPDATE ... WHERE
 * status = expected), so any number of processes may work on the same job: a row is claimed by one of them
 * only, and settled only by the one that claimed it.
 *
 * `inTeam(teamId)` gives the same repository limited to one workspace: every statement it runs, on a job, its
 * rows or its draft, also requires the job to be of that workspace, so an id from another workspace (a forged
 * button value) reads and changes nothing. The repository without a workspace reaches every one: for the
 * background scans that find the work of all workspaces, and for tests.
 */
export class BulkJobs {
  constructor(
    private readonly db: Kysely<Tables>,
    private readonly engine: 'sqlite' | 'postgres',
    /** The workspace every statement is limited to; undefined: every workspace. */
    readonly teamId?: string,
  ) {}

  /** This repository limited to one workspace's jobs (see the class). */
  inTeam(teamId: string): BulkJobs {
    return new BulkJobs(this.db, this.engine, teamId);
  }

  /** The same repository (and workspace) on another connection: a transaction's. */
  private on(db: Kysely<Tables>): BulkJobs {
    return new BulkJobs(db, this.engine, this.teamId);
  }

  /** On a statement on bulk_jobs: the job is in this repository's workspace (any job when it has none). */
  private ownJobs(eb: ExpressionBuilder<Tables, 'bulk_jobs'>): Expression<SqlBool> {
    return this.teamId === undefined ? sql<SqlBool>`1 = 1` : eb('bulk_jobs.team_id', '=', this.teamId);
  }

  /**
   * Job `id`, when it is in this repository's workspace: the subquery that statements on a job's rows and
   * draft filter their job_id by.
   */
  private ownJob(id: string) {
    return this.db
      .selectFrom('bulk_jobs')
      .select('bulk_jobs.id')
      .where('bulk_jobs.id', '=', id)
      .where((eb) => this.ownJobs(eb));
  }

  /** The workspace of a repository limited to one; work that only makes sense for one workspace asks for it. */
  private requireTeam(what: string): string {
    if (this.teamId === undefined) throw new Error(`${what} is done for one workspace: use inTeam(teamId)`);
    return this.teamId;
  }

  /**
   * Stores a job as a draft, its rows packed in one value (see packRows: a draft is checked, then waits for
   * Start or its expiry, and its rows are read only for the errors file): valid ones to be sent, the others
   * invalid with their problem. The rows are read as they come; if reading them throws, nothing is stored.
   * With `keepNewest`, the requester's oldest other drafts beyond that many are deleted in the same
   * transaction, and returned.
   */
  async createDraft(input: NewBulkJob, now = new Date(), options: DraftOptions = {}): Promise<StoredDraft> {
    if (this.teamId !== undefined && input.teamId !== this.teamId)
      throw new Error('a draft for another workspace than the repository’s');
    const packed = await packRows(input.rows, options.scrub);
    const job: Selectable<BulkJobsTable> = {
      id: newJobId(),
      team_id: input.teamId ?? null,
      requester_id: input.requesterId,
      kind: input.kind,
      status: 'draft',
      source_name: input.sourceName,
      columns: JSON.stringify(input.columns),
      defaults: JSON.stringify(input.defaults),
      total_rows: packed.total,
      valid_rows: packed.valid,
      created_at: now.toISOString(),
      updated_at: now.toISOString(),
      started_at: null,
      finished_at: null,
      changed_by: null,
      note: null,
      cancelled_by: null,
      audit_id: null,
      message_channel: null,
      message_ts: null,
      progress_at: null,
      progress_digest: null,
      finish_claimed_at: null,
      finish_attempts: 0,
      results_file_id: null,
      results_note: null,
      retry_of: input.retryOf ?? null,
      retried_as: null,
      held_rows: packed.held,
    };
    return this.inTransaction(async (db) => {
      // One requester's drafts are counted and pruned one transaction at a time (SQLite: one writer anyway).
      if (this.engine === 'postgres') {
        const key = `bulk-drafts:${input.teamId ?? ''}:${input.requesterId}`;
        await sql`select pg_advisory_xact_lock(hashtext(${key}))`.execute(db);
      }
      if (input.retryOf !== undefined) {
        // One unstarted retry of a job per requester (the lock above makes the look and the insert one step).
        const existing = await new BulkJobs(db, this.engine, this.teamId).retryDraftOf(
          input.retryOf,
          input.requesterId,
        );
        if (existing) return { job: existing, dropped: [] };
      }
      await db.insertInto('bulk_jobs').values(job).execute();
      await db.insertInto('bulk_drafts').values({ job_id: job.id, packed_rows: packed.data }).execute();
      const dropped =
        options.keepNewest === undefined
          ? []
          : await new BulkJobs(db, this.engine).dropOldDrafts(job, options.keepNewest - 1);
      return { job: toJob(job), dropped };
    });
  }

  /**
   * Deletes the requester's drafts in the workspace of `newest`, other than it, beyond the newest `keep`;
   * returns them, newest first. (Someone's drafts in another workspace are theirs there.)
   */
  private async dropOldDrafts(newest: Selectable<BulkJobsTable>, keep: number): Promise<BulkJob[]> {
    const { requester_id: requesterId, team_id: teamId, id: except } = newest;
    const older = await this.db
      .selectFrom('bulk_jobs')
      .selectAll()
      .where('requester_id', '=', requesterId)
      .where((eb) => (teamId === null ? eb('team_id', 'is', null) : eb('team_id', '=', teamId)))
      .where('status', '=', 'draft')
      .where('id', '!=', except)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .offset(Math.max(keep, 0))
      .limit(1_000)
      .execute();
    if (older.length === 0) return [];
    // Only if still drafts (one started meanwhile is kept); their packed rows, and any rows, go with them (the
    // foreign keys cascade). The job's row is locked first, as Start locks it first: the two cannot deadlock.
    const ids = older.map((row) => row.id);
    const deleted = await this.db
      .deleteFrom('bulk_jobs')
      .where('id', 'in', ids)
      .where('status', '=', 'draft')
      .returning('id')
      .execute();
    const gone = new Set(deleted.map((row) => row.id));
    return older.filter((row) => gone.has(row.id)).map((row) => toJob(row));
  }

  /** The requester's unstarted retry of job `retryOf`, if there is one. */
  async retryDraftOf(retryOf: string, requesterId: string): Promise<BulkJob | undefined> {
    const row = await this.db
      .selectFrom('bulk_jobs')
      .selectAll()
      .where('retry_of', '=', retryOf)
      .where('requester_id', '=', requesterId)
      .where('status', '=', 'draft')
      .where((eb) => this.ownJobs(eb))
      .orderBy('created_at', 'desc')
      .executeTakeFirst();
    return row ? toJob(row) : undefined;
  }

  async get(id: string): Promise<BulkJob | undefined> {
    const row = await this.db
      .selectFrom('bulk_jobs')
      .selectAll()
      .where('id', '=', id)
      .where((eb) => this.ownJobs(eb))
      .executeTakeFirst();
    return row ? toJob(row) : undefined;
  }

  /**
   * draft -> running, by its requester only; `auditId` links the job's audit entry. In the same transaction
   * the draft's packed rows become the job's rows, each to be claimed and settled on its own (held-back rows
   * only with `includeHeld`). A retry starts only if the job it retries has not been retried yet, and marks it
   * retried (a compare-and-set on that job: of two retries of the same job, one starts).
   */
  async start(id: string, by: string, auditId: string, options: StartOptions = {}): Promise<JobTransition> {
    const now = options.now ?? new Date();
    return this.inTransaction(async (db) => {
      const jobs = this.on(db);
      const draft = await jobs.get(id);
      const retryOf = draft?.status === 'draft' && draft.requesterId === by ? draft.retryOf : undefined;
      if (retryOf !== undefined && !(await jobs.markRetried(retryOf, id))) return { won: false, job: draft };
      const started = await jobs.transition(
        id,
        ['draft'],
        { started_at: now.toISOString(), changed_by: by, audit_id: auditId },
        now,
        { requester: by, to: 'running' },
      );
      if (!started.won) {
        if (retryOf !== undefined) await jobs.unmarkRetried(retryOf, id);
        return started;
      }
      await jobs.unpackDraft(id, options.includeHeld ?? false);
      return { won: true, job: (await jobs.get(id)) ?? started.job };
    });
  }

  /** Job `id` is retried as `retryId`, if it was not retried yet (a compare-and-set). */
  private async markRetried(id: string, retryId: string): Promise<boolean> {
    const result = await this.db
      .updateTable('bulk_jobs')
      .set({ retried_as: retryId })
      .where('id', '=', id)
      .where('status', '=', 'done')
      .where('retried_as', 'is', null)
      .where((eb) => this.ownJobs(eb))
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  /** Undoes markRetried when the retry did not start after all (in the same transaction). */
  private async unmarkRetried(id: string, retryId: string): Promise<void> {
    await this.db
      .updateTable('bulk_jobs')
      .set({ retried_as: null })
      .where('id', '=', id)
      .where('retried_as', '=', retryId)
      .execute();
  }

  /**
   * A started draft's packed rows written out as rows of the job, a batch at a time; held-back rows only when
   * chosen, and then counted in the job's total and valid rows.
   */
  private async unpackDraft(id: string, includeHeld: boolean): Promise<void> {
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

  /** The job's progress message was posted: it counts as its last update (the next one comes after the gap). */
  async setMessage(id: string, channel: string, ts: string): Promise<void> {
    await this.db
      .updateTable('bulk_jobs')
      .set({ message_channel: channel, message_ts: ts, progress_at: databaseNow(this.engine) })
      .where('id', '=', id)
      .where((eb) => this.ownJobs(eb))
      .execute();
  }

  /** running -> paused; `note` says why when the app itself pauses it. */
  async pause(id: string, by: string, note?: string, now = new Date()): Promise<JobTransition> {
    return this.transition(id, ['running'], { changed_by: by, note: note ?? null }, now, { to: 'paused' });
  }

  /** paused -> running. */
  async resume(id: string, by: string, now = new Date()): Promise<JobTransition> {
    return this.transition(id, ['paused'], { changed_by: by, note: null }, now, { to: 'running' });
  }

  /**
   * running | paused -> finishing, and every row not yet sent -> cancelled, together. Rows being sent at
   * that moment finish as they would have.
   */
  async cancel(id: string, by: string, now = new Date()): Promise<JobTransition> {
    return this.inTransaction((db) => this.on(db).end(id, { by, note: undefined, rowError: undefined }, now));
  }

  /**
   * The app stops every running or paused job of this repository's workspace at once (the app was removed
   * from it): each is cancelled by `by` with `note`, and its rows not yet sent are cancelled with `rowError`,
   * as a cancel does. Rows being sent finish as they would have. Returns the jobs stopped.
   */
  async stopAll(stop: { by: string; note: string; rowError: string }, now = new Date()): Promise<BulkJob[]> {
    this.requireTeam('stopping every job');
    return this.inTransaction(async (db) => {
      const jobs = this.on(db);
      const stopped: BulkJob[] = [];
      for (const { id } of await jobs.ids(['running', 'paused'], 10_000)) {
        const result = await jobs.end(id, stop, now);
        if (result.won) stopped.push(result.job);
      }
      return stopped;
    });
  }

  /** running | paused -> finishing, cancelled by `by`, and the rows not yet sent cancelled (in a transaction). */
  private async end(
    id: string,
    stop: { by: string; note: string | undefined; rowError: string | undefined },
    now: Date,
  ): Promise<JobTransition> {
    const result = await this.transition(
      id,
      ['running', 'paused'],
      { changed_by: stop.by, cancelled_by: stop.by, note: stop.note ?? null },
      now,
      { to: 'finishing' },
    );
    if (result.won) {
      await this.db
        .updateTable('bulk_rows')
        .set({ status: 'cancelled', error: stop.rowError ?? null, finished_at: now.toISOString() })
        .where('job_id', '=', id)
        .where('status', '=', 'pending')
        .execute();
    }
    return result;
  }

  /**
   * Claims up to `limit` pending rows of a running job for `workerId` (pending -> sending), lowest row first,
   * whatever its workspace has in flight (the worker claims with claimNext, which keeps to the workspace's
   * limit). On PostgreSQL rows another process is claiming are skipped (FOR UPDATE SKIP LOCKED); on SQLite
   * the write lock makes the claim atomic. Either way the UPDATE checks the row is still pending: a row is
   * claimed once.
   */
  async claim(jobId: string, workerId: string, limit = 1): Promise<BulkRow[]> {
    return this.inTransaction((db) => this.on(db).claimRows(jobId, workerId, limit));
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
        const rows = await this.on(db).claimRows(job.id, workerId, room);
        claimed.push(...rows.map((row) => ({ ...row, kind: job.kind as BulkKind })));
        room -= rows.length;
        if (room <= 0) break;
      }
      return { rows: claimed, atLimit: false };
    });
  }

  /** The claim itself, in the caller's transaction. */
  private async claimRows(jobId: string, workerId: string, limit: number): Promise<BulkRow[]> {
    // Two statements: PostgreSQL may run a LIMIT ... SKIP LOCKED subquery of an UPDATE more than once, each
    // time picking other rows, so the candidates are read first, then claimed.
    let candidates = this.db
      .selectFrom('bulk_rows')
      .select('row_number')
      .where('job_id', 'in', this.ownJob(jobId))
      .where('status', '=', 'pending')
      .orderBy('row_number')
      .limit(limit);
    if (this.engine === 'postgres') candidates = candidates.forUpdate().skipLocked();
    const numbers = (await candidates.execute()).map((r) => Number(r.row_number));
    if (numbers.length === 0) return [];
    const rows = await this.db
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

  /** sending -> done | failed | unknown, by the process that claimed the row. */
  async settle(jobId: string, rowNumber: number, workerId: string, outcome: RowOutcome, now = new Date()) {
    const result = await this.db
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
    return Number(result.numUpdatedRows) === 1;
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

  /** running -> finishing once no row is pending or being sent. */
  async finishIfSettled(id: string, now = new Date()): Promise<JobTransition> {
    return this.transition(id, ['running'], {}, now, { to: 'finishing', noRowIn: ['pending', 'sending'] });
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
   * finishing -> done, by the process whose claim this is: its claim time and its attempt number (two claims
   * within the same millisecond share a time, never an attempt number).
   */
  async complete(
    id: string,
    claim: Pick<BulkJob, 'finishClaimedAt' | 'finishAttempts'> | undefined,
    results: { fileId?: string | undefined; note?: string | undefined },
    now = new Date(),
  ): Promise<JobTransition> {
    return this.transition(
      id,
      ['finishing'],
      { finished_at: now.toISOString(), results_file_id: results.fileId ?? null, results_note: results.note ?? null },
      now,
      { to: 'done', finishClaim: claim },
    );
  }

  /** The results file of an ended job, sent again after a failure. */
  async setResultsFile(id: string, fileId: string): Promise<void> {
    await this.db
      .updateTable('bulk_jobs')
      .set({ results_file_id: fileId, results_note: null })
      .where('id', '=', id)
      .where((eb) => this.ownJobs(eb))
      .where('status', '=', 'done')
      .execute();
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

  /**
   * Records what the job's message shows now (`digest`), after an update built when the job recorded
   * `builtOn`. When another update was recorded meanwhile, the two overlapped and Slack may have applied
   * them in either order: the record is cleared (as it is with `digest` undefined, after an update that
   * failed and may or may not have been applied), so that the message is sent again. Returns whether the
   * digest was recorded.
   */
  async recordProgress(id: string, digest: string | undefined, builtOn: string | undefined): Promise<boolean> {
    if (digest !== undefined) {
      const result = await this.db
        .updateTable('bulk_jobs')
        .set({ progress_digest: digest })
        .where('id', '=', id)
        .where((eb) => this.ownJobs(eb))
        .where((eb) =>
          builtOn === undefined ? eb('progress_digest', 'is', null) : eb('progress_digest', '=', builtOn),
        )
        .executeTakeFirst();
      if (Number(result.numUpdatedRows) === 1) return true;
    }
    await this.db
      .updateTable('bulk_jobs')
      .set({ progress_digest: null })
      .where('id', '=', id)
      .where((eb) => this.ownJobs(eb))
      .execute();
    return false;
  }

  async counts(id: string): Promise<RowCounts> {
    const rows = await this.db
      .selectFrom('bulk_rows')
      .select((eb) => ['status', eb.fn.countAll<string | number>().as('n')])
      .where('job_id', 'in', this.ownJob(id))
      .groupBy('status')
      .execute();
    const counts = Object.fromEntries(BULK_ROW_STATUSES.map((s) => [s, 0])) as RowCounts;
    for (const row of rows) counts[row.status as BulkRowStatus] = Number(row.n);
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

  /** The jobs that ended (done) at or after `since`, oldest first. */
  async endedSince(since: Date, limit = 100): Promise<JobRef[]> {
    const rows = await this.db
      .selectFrom('bulk_jobs')
      .select(['id', 'team_id'])
      .where('status', '=', 'done')
      .where('finished_at', '>=', since.toISOString())
      .where((eb) => this.ownJobs(eb))
      .orderBy('finished_at')
      .limit(limit)
      .execute();
    return rows.map((row) => toRef(row));
  }

  /** The jobs in these statuses, oldest first. */
  async ids(statuses: readonly BulkJobStatus[], limit = 100): Promise<JobRef[]> {
    const rows = await this.db
      .selectFrom('bulk_jobs')
      .select(['id', 'team_id'])
      .where('status', 'in', statuses)
      .where((eb) => this.ownJobs(eb))
      .orderBy('created_at')
      .limit(limit)
      .execute();
    return rows.map((row) => toRef(row));
  }

  /**
   * Jobs in these statuses (and, with `undelivered`, the ended ones whose results file was not sent), newest
   * first (or oldest first); of one requester, or of everyone else.
   */
  async list(filter: {
    statuses: readonly BulkJobStatus[];
    undelivered?: boolean;
    requesterId?: string;
    notRequesterId?: string;
    limit?: number;
    oldestFirst?: boolean;
  }): Promise<BulkJob[]> {
    let query = this.db
      .selectFrom('bulk_jobs')
      .selectAll()
      .where((eb) =>
        eb.or([
          eb('status', 'in', filter.statuses),
          ...(filter.undelivered ? [eb.and([eb('status', '=', 'done'), eb('results_file_id', 'is', null)])] : []),
        ]),
      )
      .where((eb) => this.ownJobs(eb));
    if (filter.requesterId) query = query.where('requester_id', '=', filter.requesterId);
    if (filter.notRequesterId) query = query.where('requester_id', '!=', filter.notRequesterId);
    const rows = await query
      .orderBy('created_at', filter.oldestFirst ? 'asc' : 'desc')
      .limit(filter.limit ?? 20)
      .execute();
    return rows.map((row) => toJob(row));
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

  /** Forgets drafts created before `before` that were never started; returns how many. */
  async deleteDraftsBefore(before: Date): Promise<number> {
    return this.inTransaction(async (db) => {
      const old = db
        .selectFrom('bulk_jobs')
        .select('id')
        .where('status', '=', 'draft')
        .where('created_at', '<', before.toISOString())
        .where((eb) => this.ownJobs(eb));
      await db.deleteFrom('bulk_rows').where('job_id', 'in', old).execute();
      const result = await db
        .deleteFrom('bulk_jobs')
        .where('status', '=', 'draft')
        .where('created_at', '<', before.toISOString())
        .where((eb) => this.ownJobs(eb))
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    });
  }

  /** Runs `work` in a transaction: this one's when the repository is part of one already. */
  private inTransaction<T>(work: (db: Kysely<Tables>) => Promise<T>): Promise<T> {
    if (this.db.isTransaction) return work(this.db);
    return this.db.transaction().execute((trx) => work(trx));
  }

  private async transition(
    id: string,
    from: readonly BulkJobStatus[],
    changes: Updateable<BulkJobsTable>,
    now: Date,
    guard: {
      to: BulkJobStatus;
      requester?: string;
      finishClaim?: Pick<BulkJob, 'finishClaimedAt' | 'finishAttempts'> | undefined;
      noRowIn?: readonly BulkRowStatus[];
    },
  ): Promise<JobTransition> {
    let update = this.db
      .updateTable('bulk_jobs')
      .set({ ...changes, status: guard.to, updated_at: now.toISOString() })
      .where('id', '=', id)
      .where((eb) => this.ownJobs(eb))
      .where('status', 'in', from);
    if (guard.requester) update = update.where('requester_id', '=', guard.requester);
    if ('finishClaim' in guard) {
      const claim = guard.finishClaim;
      update = update
        .where('finish_claimed_at', '=', claim?.finishClaimedAt ?? '')
        .where('finish_attempts', '=', claim?.finishAttempts ?? -1);
    }
    const noRowIn = guard.noRowIn;
    if (noRowIn) {
      update = update.where((eb) =>
        eb.not(
          eb.exists(
            eb
              .selectFrom('bulk_rows')
              .select('bulk_rows.row_number')
              .where('bulk_rows.job_id', '=', id)
              .where('bulk_rows.status', 'in', noRowIn),
          ),
        ),
      );
    }
    const result = await update.executeTakeFirst();
    const job = await this.get(id);
    return Number(result.numUpdatedRows) === 1 && job ? { won: true, job } : { won: false, job };
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
    if (options.statuses?.length && !options.statuses.includes(values.status as BulkRowStatus)) continue;
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

/** Short ids people can read out: BK- and 6 letters/digits without look-alikes. */
const ALPHABET = '23456789ABCDEFGHJKMNPQRSTUVWXYZ';
function newJobId(): string {
  return `BK-${Array.from({ length: 6 }, () => ALPHABET[randomInt(ALPHABET.length)]).join('')}`;
}

function toRef(row: { id: string; team_id: string | null }): JobRef {
  return { id: row.id, teamId: row.team_id ?? undefined };
}

function toJob(row: Selectable<BulkJobsTable>): BulkJob {
  const date = (value: string | null) => (value ? new Date(value) : undefined);
  return {
    id: row.id,
    teamId: row.team_id ?? undefined,
    requesterId: row.requester_id,
    kind: row.kind as BulkKind,
    status: row.status as BulkJobStatus,
    sourceName: row.source_name,
    columns: JSON.parse(row.columns) as string[],
    defaults: JSON.parse(row.defaults) as Record<string, unknown>,
    totalRows: Number(row.total_rows),
    validRows: Number(row.valid_rows),
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
    startedAt: date(row.started_at),
    finishedAt: date(row.finished_at),
    changedBy: row.changed_by ?? undefined,
    note: row.note ?? undefined,
    cancelledBy: row.cancelled_by ?? undefined,
    auditId: row.audit_id ?? undefined,
    messageChannel: row.message_channel ?? undefined,
    messageTs: row.message_ts ?? undefined,
    progressAt: date(row.progress_at),
    progressDigest: row.progress_digest ?? undefined,
    finishClaimedAt: row.finish_claimed_at ?? undefined,
    finishAttempts: Number(row.finish_attempts),
    resultsFileId: row.results_file_id ?? undefined,
    resultsNote: row.results_note ?? undefined,
    retryOf: row.retry_of ?? undefined,
    retriedAs: row.retried_as ?? undefined,
    heldRows: Number(row.held_rows ?? 0),
  };
}

function toRow(row: Selectable<BulkRowsTable>): BulkRow {
  return {
    jobId: row.job_id,
    rowNumber: Number(row.row_number),
    status: row.status as BulkRowStatus,
    cells: JSON.parse(row.cells) as string[],
    request: row.request === null ? undefined : (JSON.parse(row.request) as unknown),
    error: row.error ?? undefined,
    resultUrl: row.result_url ?? undefined,
    claimedBy: row.claimed_by ?? undefined,
    claimedAt: row.claimed_at ? new Date(row.claimed_at) : undefined,
    finishedAt: row.finished_at ? new Date(row.finished_at) : undefined,
  };
}
