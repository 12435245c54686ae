import { z } from 'zod';
import { parseJson } from './stored-json.js';
import type { Kysely } from 'kysely';
import { v7 as uuidv7 } from 'uuid';
import { completeHistory, writeHistory } from './history/write.js';
import { type HistoryMade, historyRecord } from './history/entry.js';
import type { Tables } from './tables.js';

export interface AuditEntryInput {
  actorId: string;
  teamId?: string | undefined;
  operation: string;
  /** Where the operation came from when not from a person in Slack's UI: `workflow <execution id>`. */
  origin?: string | undefined;
  inputs: Record<string, unknown>;
  outcome: string;
  detail?: string | undefined;
}

/**
 * An operation recorded before it runs (or, for a deletion request, while it waits for its decisions), with what
 * it makes for History: the capability that runs it says so, `null` when it makes nothing History lists.
 */
export interface AuditStartInput extends Omit<AuditEntryInput, 'outcome'> {
  history: HistoryMade | null;
}

export interface AuditEntry extends Required<Omit<AuditEntryInput, 'teamId' | 'detail' | 'origin'>> {
  id: string;
  at: Date;
  teamId: string | undefined;
  origin: string | undefined;
  detail: string | undefined;
}

/** Bounds so one entry stays small however large the input was (e.g. thousands of customer ids). */
const MAX_INPUTS_CHARS = 4000;
const MAX_DETAIL_CHARS = 1000;

/** Who did what, when, with which inputs, and how it ended. Append-only. */
export class AuditLog {
  constructor(private readonly db: Kysely<Tables>) {}

  /**
   * Records an operation before it runs, with outcome `pending`: if the database cannot take it, the
   * operation must not run; if the process dies before `complete`, the row still shows it was attempted. What it
   * makes (`history`) is a History row written with the entry, in one transaction: both are written, or neither.
   */
  async start(entry: AuditStartInput, at = new Date()): Promise<AuditEntry> {
    const { history, ...rest } = entry;
    return this.write({ ...rest, outcome: 'pending' }, history, at);
  }

  /**
   * Sets the outcome of an operation recorded with `start` (and of its History row, in one transaction).
   * `failure`: why it failed as the person was told (mrkdwn), kept on its History row.
   */
  async complete(id: string, outcome: string, detail?: string, failure?: string): Promise<void> {
    await atomically(this.db, async (db) => {
      await db
        .updateTable('audit_log')
        .set({ outcome, detail: detail === undefined ? null : truncate(detail, MAX_DETAIL_CHARS) })
        .where('id', '=', id)
        .execute();
      await completeHistory(db, id, outcome, detail, failure);
    });
  }

  /** Records an operation done (or refused) at once: nothing History lists is made this way (see `start`). */
  async record(entry: AuditEntryInput, at = new Date()): Promise<AuditEntry> {
    return this.write(entry, null, at);
  }

  private async write(entry: AuditEntryInput, history: HistoryMade | null, at: Date): Promise<AuditEntry> {
    const row = {
      id: uuidv7(), // monotonic within the process: orders entries of the same millisecond
      at: at.toISOString(),
      actor_id: entry.actorId,
      team_id: entry.teamId ?? null,
      operation: entry.operation,
      origin: entry.origin ?? null,
      inputs: boundedJson(entry.inputs),
      outcome: entry.outcome,
      detail: entry.detail === undefined ? null : truncate(entry.detail, MAX_DETAIL_CHARS),
    };
    const made =
      history &&
      historyRecord(
        { id: row.id, at, actorId: entry.actorId, teamId: entry.teamId, outcome: entry.outcome, detail: entry.detail },
        history,
      );
    if (!made) await this.db.insertInto('audit_log').values(row).execute();
    else
      await atomically(this.db, async (db) => {
        await db.insertInto('audit_log').values(row).execute();
        await writeHistory(db, made);
      });
    return toEntry(row);
  }

  /** Newest first. */
  async list(
    filter: { actorId?: string; teamId?: string; operation?: string; limit?: number } = {},
  ): Promise<AuditEntry[]> {
    let query = this.db.selectFrom('audit_log').selectAll();
    if (filter.teamId) query = query.where('team_id', '=', filter.teamId);
    if (filter.actorId) query = query.where('actor_id', '=', filter.actorId);
    if (filter.operation) query = query.where('operation', '=', filter.operation);
    const rows = await query
      .orderBy('at', 'desc')
      .orderBy('id', 'desc')
      .limit(filter.limit ?? 50)
      .execute();
    return rows.map((row) => toEntry(row));
  }
}

export function toEntry(row: Tables['audit_log']): AuditEntry {
  return {
    id: row.id,
    at: new Date(row.at),
    actorId: row.actor_id,
    teamId: row.team_id ?? undefined,
    operation: row.operation,
    origin: row.origin ?? undefined,
    inputs: parseJson(row.inputs, z.record(z.string(), z.unknown())) ?? {},
    outcome: row.outcome,
    detail: row.detail ?? undefined,
  };
}

/** Runs `work` in a transaction: the caller's when it is in one already, else one of its own. */
function atomically<T>(db: Kysely<Tables>, work: (db: Kysely<Tables>) => Promise<T>): Promise<T> {
  return db.isTransaction ? work(db) : db.transaction().execute(work);
}

/** JSON of the inputs; when too long, long arrays and strings are shortened and the cut is marked. */
function boundedJson(inputs: Record<string, unknown>): string {
  const json = JSON.stringify(inputs);
  if (json.length <= MAX_INPUTS_CHARS) return json;
  const shortened = Object.fromEntries(
    Object.entries(inputs).map(([key, value]) => {
      if (Array.isArray(value) && value.length > 20) return [key, { count: value.length, first: value.slice(0, 20) }];
      if (typeof value === 'string') return [key, truncate(value, 500)];
      return [key, value];
    }),
  );
  const again = JSON.stringify(shortened);
  return again.length <= MAX_INPUTS_CHARS
    ? again
    : JSON.stringify({ truncated: truncate(again, MAX_INPUTS_CHARS - 20) });
}

function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
