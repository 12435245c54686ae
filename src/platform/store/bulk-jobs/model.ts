import type { Selectable } from 'kysely';
import type { NewBulkRow } from './draft-rows.js';
import type { BulkJobsTable, BulkJobStatus, BulkKind, BulkRowStatus, BulkRowsTable } from '../tables.js';
import type { BulkRowRequest } from '../history/entry.js';

// What bulk jobs keep, as the app reads it: a job, its rows, and the outcomes of the compare-and-sets on them.

// The unions are the columns' own types (tables.ts), so a row reads back typed.
export type { BulkKind, BulkJobStatus, BulkRowStatus } from '../tables.js';

export const BULK_JOB_STATUSES: readonly BulkJobStatus[] = ['draft', 'running', 'paused', 'finishing', 'done'];
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

/** Counts of a job with no rows yet. */
export function noRows(): RowCounts {
  return { invalid: 0, pending: 0, sending: 0, done: 0, failed: 0, unknown: 0, cancelled: 0 };
}

/** Where a job stands, as a list of jobs shows it. */
export interface JobSummary {
  status: BulkJobStatus;
  /** Ended (or ending) because someone, or the app, cancelled it. */
  cancelled: boolean;
  counts: RowCounts;
}

/** How a row that was sent ended. */
/** How a row ended. Done, it says what it made (the request sent), for its History row. */
export type RowOutcome =
  | { status: 'done'; resultUrl?: string | undefined; made: BulkRowRequest }
  | { status: 'failed' | 'unknown'; error: string };

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

export function toJob(row: Selectable<BulkJobsTable>): BulkJob {
  const date = (value: string | null) => (value ? new Date(value) : undefined);
  return {
    id: row.id,
    teamId: row.team_id ?? undefined,
    requesterId: row.requester_id,
    kind: row.kind,
    status: row.status,
    sourceName: row.source_name,
    // eslint-disable-next-line @typescript-eslint/consistent-type-assertions -- read back as this repository wrote it (its own union or JSON.stringify, in the same column)
    columns: JSON.parse(row.columns) as string[],
    // eslint-disable-next-line @typescript-eslint/consistent-type-assertions -- read back as this repository wrote it (its own union or JSON.stringify, in the same column)
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

export function toRow(row: Selectable<BulkRowsTable>): BulkRow {
  return {
    jobId: row.job_id,
    rowNumber: Number(row.row_number),
    status: row.status,
    // eslint-disable-next-line @typescript-eslint/consistent-type-assertions -- read back as this repository wrote it (its own union or JSON.stringify, in the same column)
    cells: JSON.parse(row.cells) as string[],
    // eslint-disable-next-line @typescript-eslint/consistent-type-assertions -- read back as this repository wrote it (its own union or JSON.stringify, in the same column)
    request: row.request === null ? undefined : (JSON.parse(row.request) as unknown),
    error: row.error ?? undefined,
    resultUrl: row.result_url ?? undefined,
    claimedBy: row.claimed_by ?? undefined,
    claimedAt: row.claimed_at ? new Date(row.claimed_at) : undefined,
    finishedAt: row.finished_at ? new Date(row.finished_at) : undefined,
  };
}
