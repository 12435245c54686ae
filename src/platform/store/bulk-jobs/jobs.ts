import { randomInt } from 'node:crypto';
import { sql, type Kysely, type Selectable, type Updateable } from 'kysely';
import { packRows } from './draft-rows.js';
import { databaseNow } from '../database-now.js';
import type { BulkJobsTable, Tables } from '../tables.js';
import { BulkClaims } from './claims.js';
import {
  toJob,
  type BulkJob,
  type BulkJobStatus,
  type BulkRowStatus,
  type DraftOptions,
  type JobRef,
  type JobTransition,
  type NewBulkJob,
  type StartOptions,
  type StoredDraft,
} from './model.js';

export { BULK_ROW_STATUSES, SYSTEM_ACTOR } from './model.js';
export type {
  BulkJob,
  BulkJobStatus,
  BulkKind,
  BulkRow,
  BulkRowStatus,
  ClaimedRow,
  DraftOptions,
  JobRef,
  JobSummary,
  JobTransition,
  NewBulkJob,
  NewBulkRow,
  RowCounts,
  RowOutcome,
  StartOptions,
  StoredDraft,
  TeamClaim,
} from './model.js';

/**
 * Bulk jobs and their rows. Every change of a job's or a row's status is a compare-and-set (UPDATE ... WHERE
 * status = expected), so any number of processes may work on the same job: a row is claimed by one of them
 * only, and settled only by the one that claimed it.
 *
 * `inTeam(teamId)` gives the same repository limited to one workspace: every statement it runs, on a job, its
 * rows or its draft, also requires the job to be of that workspace, so an id from another workspace (a forged
 * button value) reads and changes nothing. The repository without a workspace reaches every one: for the
 * background scans that find the work of all workspaces, and for tests.
 *
 * A job given work for the background (it becomes running, or finishing) is announced on the change feed in
 * the transaction that changes it: every replica's bulk worker looks for work at once, and none polls.
 */
export class BulkJobs extends BulkClaims {
  /** This repository limited to one workspace's jobs (see the class). */
  inTeam(teamId: string): BulkJobs {
    return new BulkJobs(this.db, this.engine, this.changes, teamId);
  }

  /** The same repository (and workspace) on another connection: a transaction's. */
  private on(db: Kysely<Tables>): BulkJobs {
    return new BulkJobs(db, this.engine, this.changes, this.teamId);
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
        const existing = await new BulkJobs(db, this.engine, this.changes, this.teamId).retryDraftOf(
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
          : await new BulkJobs(db, this.engine, this.changes).dropOldDrafts(job, options.keepNewest - 1);
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

  /** running -> finishing once no row is pending or being sent. */
  async finishIfSettled(id: string, now = new Date()): Promise<JobTransition> {
    return this.transition(id, ['running'], {}, now, { to: 'finishing', noRowIn: ['pending', 'sending'] });
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

  /** Whether any job is running or finishing: work for the background (one small read). */
  async anyAtWork(): Promise<boolean> {
    const row = await this.db
      .selectFrom('bulk_jobs')
      .select('id')
      .where('status', 'in', ['running', 'finishing'])
      .where((eb) => this.ownJobs(eb))
      .limit(1)
      .executeTakeFirst();
    return row !== undefined;
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
    const won = Number(result.numUpdatedRows) === 1;
    if (won && (guard.to === 'running' || guard.to === 'finishing'))
      await this.changes.announce(this.db, { topic: 'bulk-job', id });
    const job = await this.get(id);
    return won && job ? { won: true, job } : { won: false, job };
  }
}

/** Short ids people can read out: BK- and 6 letters/digits without look-alikes. */
const ALPHABET = '23456789ABCDEFGHJKMNPQRSTUVWXYZ';
function newJobId(): string {
  return `BK-${Array.from({ length: 6 }, () => ALPHABET[randomInt(ALPHABET.length)]).join('')}`;
}

function toRef(row: { id: string; team_id: string | null }): JobRef {
  return { id: row.id, teamId: row.team_id ?? undefined };
}
