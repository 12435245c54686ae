import { type Kysely, type SelectQueryBuilder, sql } from 'kysely';
import { z } from 'zod';
import { DELETION_ASKED_OPERATION } from './deletion-requests.js';
import {
  HISTORY_OPERATIONS,
  type HistoryHow,
  type HistoryKind,
  type HistoryRecord,
  historyOf,
  urlWords,
} from './history-entry.js';
import { parseJson } from './stored-json.js';
import type { Tables } from './tables.js';

/** One thing made through the app, as History shows it. */
export interface HistoryItem {
  id: string;
  teamId: string;
  kind: HistoryKind;
  actorId: string;
  madeAt: Date;
  how: HistoryHow;
  outcome: string;
  nftId: string | undefined;
  customerIds: string[];
  email: string | undefined;
  url: string | undefined;
  requestId: string | undefined;
  jobId: string | undefined;
  /** What else its kind shows (a link's quantity, dates, active; a job's source and rows; a request's reason). */
  facts: Record<string, string | number | boolean | undefined>;
}

/** Where a page starts: after (older) or before (newer) the row shown at its edge. */
export interface HistoryCursor {
  madeAt: string;
  id: string;
}

/**
 * Who the rows are read for: everything in the workspace, or their own rows (and, for a deletion approver,
 * the workspace's deletion requests too).
 */
export type HistoryViewer = { everything: true } | { everything: false; userId: string; deletions: boolean };

export interface HistoryQuery {
  teamId: string;
  viewer: HistoryViewer;
  /** Searchable words (see searchWords), all of which a row must have. */
  words?: readonly string[];
  kind?: HistoryKind | undefined;
  actorId?: string | undefined;
  /** Made at or after. */
  from?: Date | undefined;
  /** Made before. */
  until?: Date | undefined;
  /** `older`: the page after `cursor`, newest first; `newer`: the page before it. No cursor: the newest page. */
  direction?: 'older' | 'newer';
  cursor?: HistoryCursor | undefined;
  limit: number;
}

export interface HistoryPage {
  /** Newest first. */
  items: HistoryItem[];
  /** Whether there are rows beyond this page in the direction it was read. */
  more: boolean;
}

/** Rows of the backfill read from the audit log at a time; each batch is one short transaction. */
export const BACKFILL_BATCH = 500;
/** A word's matches counted up to this, to start a search from the rarest word. */
const RARE_COUNT_CAP = 2_000;
const BACKFILL_NAME = 'audit-log';

const factsSchema = z.record(z.string(), z.union([z.string(), z.number(), z.boolean()]));
const idsSchema = z.array(z.string());

/**
 * History's rows: written with the audit entry that made each thing (see AuditLog), read a page at a time for a
 * workspace, searched by word, pruned with the audit log's retention, and copied once from the audit log
 * written before it existed.
 */
export class HistoryRows {
  constructor(private readonly db: Kysely<Tables>) {}

  /** One row of workspace `teamId`, whoever may see it (the caller decides). */
  async get(teamId: string, id: string): Promise<HistoryItem | undefined> {
    const row = await this.db
      .selectFrom('history')
      .selectAll()
      .where('team_id', '=', teamId)
      .where('id', '=', id)
      .executeTakeFirst();
    return row ? toItem(row) : undefined;
  }

  /**
   * A page of the workspace's rows newest first, keyset-paged. A viewer who does not see everything reads their
   * own rows and (approvers) the deletion requests, each through its own index, merged here: no query scans rows
   * the viewer may not see.
   */
  async page(query: HistoryQuery): Promise<HistoryPage> {
    const lanes = lanesOf(query);
    const fetch = query.limit + 1;
    const words = query.words ?? [];
    const driver = words.length > 0 ? await this.rarestWord(query.teamId, words) : undefined;
    const reads = await Promise.all(
      lanes.map((lane) => (driver ? this.wordIds(query, lane, driver, words, fetch) : this.ids(query, lane, fetch))),
    );
    const newer = query.direction === 'newer';
    const merged = [...new Map(reads.flat().map((key) => [key.id, key])).values()].sort((a, b) =>
      compareKeys(a, b, newer),
    );
    const chosen = merged.slice(0, query.limit);
    const items = await this.items(
      query.teamId,
      chosen.map((key) => key.id),
    );
    return { items: newer ? items.reverse() : items, more: merged.length > query.limit };
  }

  /** Deletes up to `batchSize` rows (and their words) made before `before`, oldest first; returns how many. */
  async pruneBatch(before: Date, batchSize: number): Promise<number> {
    return this.db.transaction().execute(async (tx) => {
      const ids = (
        await tx
          .selectFrom('history')
          .select('id')
          .where('made_at', '<', before.toISOString())
          .orderBy('made_at')
          .limit(batchSize)
          .execute()
      ).map((row) => row.id);
      if (ids.length === 0) return 0;
      await tx.deleteFrom('history_terms').where('history_id', 'in', ids).execute();
      await tx.deleteFrom('history').where('id', 'in', ids).execute();
      return ids.length;
    });
  }

  /**
   * Copies one batch of the audit log's entries that made something (oldest first, after the last one copied)
   * into history, in one transaction with the new position; returns how many entries it read and whether the
   * copy is done. Rows already there (written live) are left as they are, so a batch run twice, or by two
   * replicas at once, copies each entry once. A deletion request's customers are read from the request itself
   * (the audit entry keeps only the first 20 of a long list).
   */
  async backfillBatch(batchSize = BACKFILL_BATCH): Promise<{ read: number; finished: boolean }> {
    return this.db.transaction().execute(async (tx) => {
      const state = await tx
        .selectFrom('history_backfill')
        .selectAll()
        .where('name', '=', BACKFILL_NAME)
        .executeTakeFirst();
      if (state?.finished_at) return { read: 0, finished: true };
      let query = tx.selectFrom('audit_log').selectAll().where('operation', 'in', Object.keys(HISTORY_OPERATIONS));
      const after = state?.after_at && state.after_id ? { at: state.after_at, id: state.after_id } : undefined;
      if (after)
        query = query
          .where('at', '>=', after.at)
          .where((eb) => eb(eb.refTuple('at', 'id'), '>', eb.tuple(after.at, after.id)));
      const entries = await query.orderBy('at').orderBy('id').limit(batchSize).execute();
      const requestIds = entries.flatMap((e) =>
        e.operation === DELETION_ASKED_OPERATION && e.detail ? [e.detail] : [],
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
        const inputs = parseJson(entry.inputs, z.record(z.string(), z.unknown())) ?? {};
        const made = historyOf(
          {
            id: entry.id,
            at: new Date(entry.at),
            actorId: entry.actor_id,
            teamId: entry.team_id ?? undefined,
            operation: entry.operation,
            origin: entry.origin ?? undefined,
            inputs,
            outcome: entry.outcome,
            detail: entry.detail ?? undefined,
          },
          entry.detail ? customersOf.get(entry.detail) : undefined,
        );
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
      await tx
        .insertInto('history_backfill')
        .values({ name: BACKFILL_NAME, ...position })
        .onConflict((oc) => oc.column('name').doUpdateSet(position))
        .execute();
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

  /** The word with the fewest rows in the workspace (counted up to a cap): a search reads its rows first. */
  private async rarestWord(teamId: string, words: readonly string[]): Promise<string> {
    if (words.length === 1) return words[0] ?? '';
    const counts = await Promise.all(
      words.map(async (word) => {
        const found = await this.db
          .selectFrom((eb) =>
            eb
              .selectFrom('history_terms')
              .select('history_id')
              .where('team_id', '=', teamId)
              .where('term', '=', word)
              .limit(RARE_COUNT_CAP)
              .as('matches'),
          )
          .select((eb) => eb.fn.countAll<number | string>().as('n'))
          .executeTakeFirst();
        return { word, n: Number(found?.n ?? 0) };
      }),
    );
    counts.sort((a, b) => a.n - b.n);
    return counts[0]?.word ?? words[0] ?? '';
  }

  private async ids(query: HistoryQuery, lane: Lane, fetch: number): Promise<Key[]> {
    let select = this.db.selectFrom('history').select(['id', 'made_at']).where('team_id', '=', query.teamId);
    select = filtered(select, query, lane, 'made_at', 'id');
    const rows = await ordered(select, query, 'made_at', 'id').limit(fetch).execute();
    return rows.map((row) => ({ id: row.id, madeAt: row.made_at }));
  }

  private async wordIds(query: HistoryQuery, lane: Lane, driver: string, words: readonly string[], fetch: number) {
    let select = this.db
      .selectFrom('history_terms as t')
      .select(['t.history_id as id', 't.made_at as made_at'])
      .where('t.team_id', '=', query.teamId)
      .where('t.term', '=', driver);
    for (const word of words)
      if (word !== driver)
        select = select.where((eb) =>
          eb.exists(
            eb
              .selectFrom('history_terms as other')
              .select('other.history_id')
              .whereRef('other.history_id', '=', 't.history_id')
              .where('other.term', '=', word),
          ),
        );
    select = filtered(select, query, lane, 't.made_at', 't.history_id', 't.');
    const rows = await ordered(select, query, 't.made_at', 't.history_id').limit(fetch).execute();
    return rows.map((row) => ({ id: row.id, madeAt: row.made_at }));
  }

  private async items(teamId: string, ids: string[]): Promise<HistoryItem[]> {
    if (ids.length === 0) return [];
    const rows = await this.db
      .selectFrom('history')
      .selectAll()
      .where('team_id', '=', teamId)
      .where('id', 'in', ids)
      .execute();
    const byId = new Map(rows.map((row) => [row.id, toItem(row)]));
    return ids.flatMap((id) => byId.get(id) ?? []);
  }
}

/**
 * Writes a history row and its words (in the caller's transaction: the audit entry's). `ifAbsent`: a row
 * already there is kept (the backfill meeting a row written live).
 */
export async function writeHistory(db: Kysely<Tables>, made: HistoryRecord, options: { ifAbsent?: boolean } = {}) {
  let insert = db.insertInto('history').values(made.row);
  if (options.ifAbsent) insert = insert.onConflict((oc) => oc.column('id').doNothing());
  const written = await insert.executeTakeFirst();
  if (Number(written.numInsertedOrUpdatedRows ?? 0) === 0) return;
  await addTerms(db, made.row, made.terms);
}

/**
 * An audited operation's outcome, on its history row when it has one: the outcome, and for a link made, its
 * URL (and the URL's words).
 */
export async function completeHistory(db: Kysely<Tables>, id: string, outcome: string, detail: string | undefined) {
  const row = await db.selectFrom('history').selectAll().where('id', '=', id).executeTakeFirst();
  if (!row) return;
  const url =
    row.kind === 'link' && outcome === 'succeeded' && detail && /^https?:\/\/\S+$/.test(detail) ? detail : null;
  await db
    .updateTable('history')
    .set({ outcome, ...(url ? { url } : {}) })
    .where('id', '=', id)
    .execute();
  if (url) await addTerms(db, row, urlWords(url), { ifAbsent: true });
}

async function addTerms(
  db: Kysely<Tables>,
  row: Pick<Tables['history'], 'id' | 'team_id' | 'kind' | 'actor_id' | 'made_at'>,
  terms: readonly string[],
  options: { ifAbsent?: boolean } = {},
) {
  if (terms.length === 0) return;
  const values = [...new Set(terms.map((t) => t.toLowerCase()))].map((term) => ({
    history_id: row.id,
    term,
    team_id: row.team_id,
    kind: row.kind,
    actor_id: row.actor_id,
    made_at: row.made_at,
  }));
  // Under SQLite's 999 parameters a statement (6 a row): a deletion of 1,000 customers is several.
  for (let start = 0; start < values.length; start += 150) {
    let insert = db.insertInto('history_terms').values(values.slice(start, start + 150));
    if (options.ifAbsent) insert = insert.onConflict((oc) => oc.columns(['history_id', 'term']).doNothing());
    await insert.execute();
  }
}

/** One index range a viewer's page is read from: a person's rows, one kind's, or the whole workspace's. */
interface Lane {
  actorId?: string;
  kind?: HistoryKind;
}

/** The ranges a query reads, each within what the viewer may see; none when the filters leave nothing to see. */
function lanesOf(query: HistoryQuery): Lane[] {
  const wanted: Lane = {
    ...(query.actorId ? { actorId: query.actorId } : {}),
    ...(query.kind ? { kind: query.kind } : {}),
  };
  if (query.viewer.everything) return [wanted];
  const lanes: Lane[] = [];
  const own = query.viewer.userId;
  if (!wanted.actorId || wanted.actorId === own) lanes.push({ ...wanted, actorId: own });
  if (query.viewer.deletions && (!wanted.kind || wanted.kind === 'deletion'))
    lanes.push({ ...wanted, kind: 'deletion' });
  return lanes;
}

interface Key {
  id: string;
  madeAt: string;
}

function compareKeys(a: Key, b: Key, oldestFirst: boolean): number {
  const order = a.madeAt === b.madeAt ? (a.id < b.id ? -1 : a.id > b.id ? 1 : 0) : a.madeAt < b.madeAt ? -1 : 1;
  return oldestFirst ? order : -order;
}

type HistorySelect<DB, TB extends keyof DB, O> = SelectQueryBuilder<DB, TB, O>;

/** The lane's and the query's filters, and the keyset bound, on `history` or `history_terms as t`. */
function filtered<DB, TB extends keyof DB, O>(
  select: HistorySelect<DB, TB, O>,
  query: HistoryQuery,
  lane: Lane,
  madeAt: string,
  id: string,
  prefix = '',
): HistorySelect<DB, TB, O> {
  const column = (name: string) => sql.ref(`${prefix}${name}`);
  let out = select;
  if (lane.actorId) out = out.where(sql<boolean>`${column('actor_id')} = ${lane.actorId}`);
  if (lane.kind) out = out.where(sql<boolean>`${column('kind')} = ${lane.kind}`);
  if (query.from) out = out.where(sql<boolean>`${sql.ref(madeAt)} >= ${query.from.toISOString()}`);
  if (query.until) out = out.where(sql<boolean>`${sql.ref(madeAt)} < ${query.until.toISOString()}`);
  const cursor = query.cursor;
  if (cursor) {
    const newer = query.direction === 'newer';
    // The time alone first, so the index range starts there; then the tie on the same time by id.
    out = out.where(
      newer
        ? sql<boolean>`${sql.ref(madeAt)} >= ${cursor.madeAt} and (${sql.ref(madeAt)}, ${sql.ref(id)}) > (${cursor.madeAt}, ${cursor.id})`
        : sql<boolean>`${sql.ref(madeAt)} <= ${cursor.madeAt} and (${sql.ref(madeAt)}, ${sql.ref(id)}) < (${cursor.madeAt}, ${cursor.id})`,
    );
  }
  return out;
}

function ordered<DB, TB extends keyof DB, O>(
  select: HistorySelect<DB, TB, O>,
  query: HistoryQuery,
  madeAt: string,
  id: string,
): HistorySelect<DB, TB, O> {
  const direction = query.direction === 'newer' ? sql`asc` : sql`desc`;
  return select.orderBy(sql`${sql.ref(madeAt)} ${direction}`).orderBy(sql`${sql.ref(id)} ${direction}`);
}

function toItem(row: Tables['history']): HistoryItem {
  const facts = parseJson(row.facts, factsSchema) ?? {};
  return {
    id: row.id,
    teamId: row.team_id,
    kind: kindOf(row.kind),
    actorId: row.actor_id,
    madeAt: new Date(row.made_at),
    how: howOf(row.how),
    outcome: row.outcome,
    nftId: row.nft_id ?? undefined,
    customerIds: parseJson(row.customer_ids, idsSchema) ?? [],
    email: row.email ?? undefined,
    url: row.url ?? undefined,
    requestId: row.request_id ?? undefined,
    jobId: row.job_id ?? undefined,
    facts,
  };
}

function howOf(how: string): HistoryHow {
  return how === 'workflow' || how === 'message' || how === 'bulk' ? how : 'form';
}

function kindOf(kind: string): HistoryKind {
  return kind === 'wallet' || kind === 'deletion' || kind === 'bulk' ? kind : 'link';
}
