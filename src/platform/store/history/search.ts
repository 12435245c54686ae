import {
  type AliasedSelectQueryBuilder,
  type Expression,
  type Kysely,
  type SelectQueryBuilder,
  type SqlBool,
  sql,
} from 'kysely';
import { z } from 'zod';
import { parseJson } from '../stored-json.js';
import type { Tables } from '../tables.js';
import type { HistoryHow, HistoryKind } from './entry.js';
import { decidedByTerm } from './write.js';

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
 * Who the rows are read for: everything in the workspace, or their own rows and the deletion requests asked of
 * their audiences (see write.ts; the History capability says who sees what).
 */
export type HistoryViewer = { everything: true } | { everything: false; userId: string; audiences: readonly string[] };

export interface HistoryQuery {
  teamId: string;
  viewer: HistoryViewer;
  /** Searchable words (see searchWords), all of which a row must have. */
  words?: readonly string[];
  /**
   * For a word, the people whose Slack names hold it: a row made by one of them has that word too (see
   * HistoryPeople.peopleNamed).
   */
  people?: ReadonlyMap<string, readonly string[]>;
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
  /** Rows the page may examine (SCAN_BUDGET unless given): see HistoryPage.stoppedAt. */
  budget?: number;
  /**
   * Deletion requests with the driving word from which it is common among them (RARE_COUNT_CAP unless given): the
   * page then reads the viewer's requests and checks the word on each.
   */
  commonCount?: number;
}

export interface HistoryPage {
  /** Newest first. */
  items: HistoryItem[];
  /** Whether there are rows beyond this page in the direction it was read. */
  more: boolean;
  /**
   * Set when the page examined its budget of rows before it filled (words that are common but seldom on one
   * row): `items` are every match from the cursor up to this row, and more may lie beyond it. Read on with it
   * as the cursor, in the same direction.
   */
  stoppedAt?: HistoryCursor;
}

/**
 * Rows a page examines at most (index entries read, each checked against the other words and filters), shared
 * among its reads: at 1,000,000 rows, two common words never on one row would otherwise read one word's rows
 * until a page fills (about a second).
 */
export const SCAN_BUDGET = 5_000;
/** A word's matches counted up to this, to start a search from the rarest word. */
const RARE_COUNT_CAP = 2_000;
/** What startingWord says when one of the words has no rows: the search ends there, with nothing found. */
const NOTHING_MATCHES = Symbol('nothing matches');

const factsSchema = z.record(z.string(), z.union([z.string(), z.number(), z.boolean()]));
const idsSchema = z.array(z.string());

/**
 * History's rows read: one by its id, a page at a time for a workspace (searched by word, keyset-paged), and
 * pruned with the audit log's retention. Who may see which rows is the History capability's to say: a query
 * names the rows its viewer may see (HistoryViewer).
 */
export class HistoryRows {
  constructor(
    private readonly db: Kysely<Tables>,
    private readonly engine: 'sqlite' | 'postgres',
  ) {}

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
   * own rows and the deletion requests they were asked to decide, each through its own index, merged here: no
   * query scans rows the viewer may not see. With words, each read starts from one word's index range (the
   * rarest's, or the rows of a person named with it) and checks the others by primary key. A page examines at
   * most its budget of rows: when they hold less than a page, it says where it stopped (see HistoryPage).
   */
  async page(query: HistoryQuery): Promise<HistoryPage> {
    const lanes = lanesOf(query);
    const fetch = query.limit + 1;
    const words = query.words ?? [];
    // When every lane is one person's rows, people named with a word count only if they are one of those.
    const makers = lanes.every((lane) => lane.actorId) ? new Set(lanes.map((lane) => lane.actorId)) : undefined;
    const people = makers
      ? new Map([...(query.people ?? [])].map(([word, named]) => [word, named.filter((id) => makers.has(id))]))
      : query.people;
    // A person named finds the deletion requests they decided too, whoever made them (the lanes keep to what the
    // viewer may see).
    const deciders = query.people ?? new Map<string, readonly string[]>();
    const start = words.length > 0 ? await this.startingWord(query.teamId, words, people, deciders) : undefined;
    // A word no row has, and naming nobody who made one: no row can have all the words.
    if (start === NOTHING_MATCHES) return { items: [], more: false };
    const driver = start?.word;
    // A word on no row is matched only through its people: a person named with the driving word but not with
    // that one has no row to find, and is not read at all (two names of different people end at once).
    const onlyNames = words.filter((word) => word !== driver && start?.withWord.get(word) === 0);
    const mayMatch = (actorId: string) =>
      onlyNames.every((word) => people?.get(word)?.includes(actorId) || (deciders.get(word)?.length ?? 0) > 0);
    const sources: Source[] = driver
      ? [
          ...(start?.withWord.get(driver) === 0 ? [] : [{ term: driver }]),
          ...(people?.get(driver) ?? []).filter((actorId) => mayMatch(actorId)).map((actorId) => ({ actorId })),
          ...(deciders.get(driver) ?? []).map((userId) => ({ term: decidedByTerm(userId) })),
        ]
      : [{}];
    const match: WordMatch = { words, people: people ?? new Map(), deciders, driver };
    // A common word among deletion requests is read from the viewer's requests instead (the smaller range).
    const commonCount = query.commonCount ?? RARE_COUNT_CAP;
    const commonAmongDeletions =
      driver && lanes.some((lane) => lane.audience)
        ? (await this.countUpTo(query.teamId, driver, 'deletion', commonCount)) >= commonCount
        : false;
    const pairs = lanes.flatMap((lane) =>
      sources
        .filter((source) => !(source.actorId && lane.actorId && source.actorId !== lane.actorId))
        .map((source) => ({ lane, source })),
    );
    const budget = Math.max(1, Math.ceil((query.budget ?? SCAN_BUDGET) / Math.max(1, pairs.length)));
    const reads = await Promise.all(
      pairs.map(({ lane, source }) => this.keys(query, { lane, source, match, commonAmongDeletions, fetch, budget })),
    );
    const newer = query.direction === 'newer';
    // Each read that ran out of budget has seen every match up to where it stopped: the page has seen them all
    // only up to the stop nearest its start, and keeps nothing beyond it (the next read starts there).
    const stops = reads.flatMap((read) => (read.stoppedAt ? [read.stoppedAt] : []));
    const stop = stops.sort((a, b) => compareKeys(a, b, newer))[0];
    const merged = [...new Map(reads.flatMap((read) => read.keys).map((key) => [key.id, key])).values()]
      .sort((a, b) => compareKeys(a, b, newer))
      .filter((key) => !stop || compareKeys(key, stop, newer) <= 0);
    const chosen = merged.slice(0, query.limit);
    const items = await this.items(
      query.teamId,
      chosen.map((key) => key.id),
    );
    const full = merged.length > query.limit;
    return {
      items: newer ? items.reverse() : items,
      more: full,
      ...(stop && !full ? { stoppedAt: { madeAt: stop.madeAt, id: stop.id } } : {}),
    };
  }

  /** Whether deletion request row `id` was asked of one of these audiences (a primary-key read). */
  async askedOfAny(id: string, audiences: readonly string[]): Promise<boolean> {
    if (audiences.length === 0) return false;
    const asked = await this.db
      .selectFrom('history_audience')
      .select('history_id')
      .where('history_id', '=', id)
      .where('audience', 'in', audiences)
      .executeTakeFirst();
    return Boolean(asked);
  }

  /** The user groups any deletion request of the workspace was asked of (a handful: the settings' over time). */
  async askedGroups(teamId: string): Promise<string[]> {
    const rows = await this.db.selectFrom('history_groups').select('group_id').where('team_id', '=', teamId).execute();
    return rows.map((row) => row.group_id);
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
      await tx.deleteFrom('history_audience').where('history_id', 'in', ids).execute();
      await tx.deleteFrom('history').where('id', 'in', ids).execute();
      return ids.length;
    });
  }

  /**
   * The word with the fewest rows in the workspace, counting both the rows that have it and the rows of the
   * people named with it (each counted up to a cap): a search reads its rows first and checks the others on
   * each; with each word's own count (rows that have it, not counting names). NOTHING_MATCHES when a word has no
   * rows at all.
   */
  private async startingWord(
    teamId: string,
    words: readonly string[],
    people: ReadonlyMap<string, readonly string[]> | undefined,
    deciders: ReadonlyMap<string, readonly string[]>,
  ): Promise<{ word: string; withWord: Map<string, number> } | typeof NOTHING_MATCHES> {
    const counts = await Promise.all(
      words.map(async (word) => {
        const named = people?.get(word) ?? [];
        const deciding = deciders.get(word) ?? [];
        const [withWord, ofNamed, decided] = await Promise.all([
          this.countUpTo(teamId, word),
          named.length > 0 ? this.countMadeBy(teamId, named) : 0,
          deciding.length > 0
            ? this.countUpTo(
                teamId,
                deciding.map((userId) => decidedByTerm(userId)),
              )
            : 0,
        ]);
        // Ties go to a word found without names: its rows are one index range, not one per person.
        return { word, withWord, n: withWord + ofNamed + decided, named: named.length + deciding.length > 0 };
      }),
    );
    const withWord = new Map(counts.map((count) => [count.word, count.withWord]));
    counts.sort((a, b) => a.n - b.n || Number(a.named) - Number(b.named));
    const rarest = counts[0];
    return !rarest || rarest.n === 0 ? NOTHING_MATCHES : { word: rarest.word, withWord };
  }

  /** How many rows of the workspace these people made, counted up to RARE_COUNT_CAP. */
  private async countMadeBy(teamId: string, actorIds: readonly string[]): Promise<number> {
    const found = await this.db
      .selectFrom((eb) =>
        eb
          .selectFrom('history')
          .select('id')
          .where('team_id', '=', teamId)
          .where('actor_id', 'in', actorIds)
          .limit(RARE_COUNT_CAP)
          .as('made'),
      )
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .executeTakeFirst();
    return Number(found?.n ?? 0);
  }

  /** How many rows of the workspace (of one kind) have the word (or one of the words), counted up to `cap`. */
  private async countUpTo(
    teamId: string,
    word: string | readonly string[],
    kind?: HistoryKind,
    cap = RARE_COUNT_CAP,
  ): Promise<number> {
    const found = await this.db
      .selectFrom((eb) => {
        let matches = eb
          .selectFrom('history_terms')
          .select('history_id')
          .where('team_id', '=', teamId)
          .where('term', 'in', typeof word === 'string' ? [word] : word);
        if (kind) matches = matches.where('kind', '=', kind);
        return matches.limit(cap).as('matches');
      })
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .executeTakeFirst();
    return Number(found?.n ?? 0);
  }

  /**
   * The keys of one lane's page read from one source (the lane's index range, the driving word's range within
   * the lane, or a person's rows named with the driving word), newest first or oldest first. When rows of the
   * range must be checked (the other words, an audience, a filter the range's index does not hold), at most
   * `budget` rows of the range are examined: if they hold fewer than a page, the read says where it stopped.
   */
  private async keys(query: HistoryQuery, read: KeysRead): Promise<{ keys: Key[]; stoppedAt?: Key }> {
    const { lane, source, match, fetch, budget } = read;
    const actorId = source.actorId ?? lane.actorId;
    const teamId = query.teamId;
    const audience = lane.audience;
    // The viewer's deletion requests, the word (if any) checked on each; else the word's rows or the lane's.
    const fromAudience = Boolean(audience) && (!source.term || read.commonAmongDeletions);
    const kind = audience ? 'deletion' : lane.kind;
    // Each range is one index: (workspace, audience, time), or (workspace[, word], maker or kind, time).
    const rangeActor = fromAudience ? undefined : actorId;
    const rangeKind = fromAudience || rangeActor ? undefined : kind;
    // What each row of the range is checked for.
    const checks: Array<Expression<SqlBool>> = [];
    /** Whether a check reads the row's maker or kind (else the range is read from its index alone). */
    let checksRow = false;
    if (fromAudience && source.term) checks.push(hasTerm('w.id', source.term));
    if (audience && !fromAudience)
      checks.push(
        sql<boolean>`exists (select 1 from history_audience as asked where asked.history_id = w.id and asked.audience = ${audience})`,
      );
    if (actorId && !rangeActor) {
      checks.push(sql<boolean>`w.actor_id = ${actorId}`);
      checksRow = true;
    }
    if (kind && !rangeKind && !fromAudience) {
      checks.push(sql<boolean>`w.kind = ${kind}`);
      checksRow = true;
    }
    // The words other than the one this read starts from: a word of the row, or its maker named with it.
    for (const word of match.words) {
      if (word === match.driver) continue;
      const named = match.people.get(word) ?? [];
      const deciding = match.deciders.get(word) ?? [];
      checksRow ||= named.length > 0;
      // One index lookup for the word and the people who decided with that name, after the maker's own column:
      // a word that names many people costs a row no more than one that names none.
      const terms = hasTerm('w.id', [word, ...deciding.map((userId) => decidedByTerm(userId))]);
      checks.push(named.length > 0 ? sql<boolean>`(w.actor_id in (${sql.join(named)}) or ${terms})` : terms);
    }
    /** The range's rows in the page's order, as `w`: `limit` of them after `offset`. */
    const range = (limit: number, offset = 0): AliasedSelectQueryBuilder<RangeRow, 'w'> => {
      const actorColumn = (checksRow ? sql<string>`x.actor_id` : sql<string>`null`).as('actor_id');
      const kindColumn = (checksRow ? sql<string>`x.kind` : sql<string>`null`).as('kind');
      const finish = <DB, TB extends keyof DB>(select: SelectQueryBuilder<DB, TB, RangeRow>, idColumn: string) => {
        let out = ordered(filtered(select, query, 'x.made_at', idColumn, this.engine), query, 'x.made_at', idColumn);
        out = out.limit(limit);
        if (offset > 0) out = out.offset(offset);
        return out.as('w');
      };
      if (fromAudience && audience) {
        const select = this.db
          .selectFrom('history_audience as x')
          .select(['x.history_id as id', 'x.made_at as made_at', actorColumn])
          .select(sql<string>`'deletion'`.as('kind'))
          .where('x.team_id', '=', teamId)
          .where('x.audience', '=', audience);
        return finish(select, 'x.history_id');
      }
      if (source.term) {
        let select = this.db
          .selectFrom('history_terms as x')
          .select(['x.history_id as id', 'x.made_at as made_at', actorColumn, kindColumn])
          .where('x.team_id', '=', teamId)
          .where('x.term', '=', source.term);
        if (rangeActor) select = select.where('x.actor_id', '=', rangeActor);
        if (rangeKind) select = select.where('x.kind', '=', rangeKind);
        return finish(select, 'x.history_id');
      }
      let select = this.db
        .selectFrom('history as x')
        .select(['x.id as id', 'x.made_at as made_at', actorColumn, kindColumn])
        .where('x.team_id', '=', teamId);
      if (rangeActor) select = select.where('x.actor_id', '=', rangeActor);
      if (rangeKind) select = select.where('x.kind', '=', rangeKind);
      return finish(select, 'x.id');
    };
    // Unchecked, every row of the range is a match: the page's rows are its first ones.
    let select = this.db.selectFrom(range(checks.length > 0 ? budget : fetch)).select(['w.id', 'w.made_at']);
    for (const check of checks) select = select.where(check);
    const rows = await ordered(select, query, 'w.made_at', 'w.id').limit(fetch).execute();
    const keys = rows.map((row) => ({ id: row.id, madeAt: row.made_at }));
    if (checks.length === 0 || keys.length >= fetch) return { keys };
    // Fewer than a page: the budget ran out if the range goes on beyond the rows examined.
    const beyond = await ordered(
      this.db.selectFrom(range(2, budget - 1)).select(['w.id', 'w.made_at']),
      query,
      'w.made_at',
      'w.id',
    ).execute();
    const last = beyond[0];
    return beyond.length < 2 || !last ? { keys } : { keys, stoppedAt: { id: last.id, madeAt: last.made_at } };
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
 * One index range a viewer's page is read from: a person's rows, one kind's, the whole workspace's, or the
 * deletion requests asked of one audience.
 */
interface Lane {
  actorId?: string;
  kind?: HistoryKind;
  audience?: string;
}

/** One read of a page: its lane and source, the words it checks, and how many rows it returns and examines. */
interface KeysRead {
  lane: Lane;
  source: Source;
  match: WordMatch;
  commonAmongDeletions: boolean;
  fetch: number;
  budget: number;
}

/** A row of the range a read examines. */
interface RangeRow {
  id: string;
  made_at: string;
  actor_id: string;
  kind: string;
}

/** Where a read starts within a lane: the lane itself, one word's rows, or the rows of one person named. */
interface Source {
  term?: string;
  actorId?: string;
}

/**
 * The words a row must match, the people named with each (as its maker; and as one who decided it, `deciders`),
 * and the one the reads start from.
 */
interface WordMatch {
  words: readonly string[];
  people: ReadonlyMap<string, readonly string[]>;
  deciders: ReadonlyMap<string, readonly string[]>;
  driver: string | undefined;
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
  if (!wanted.kind || wanted.kind === 'deletion')
    for (const audience of query.viewer.audiences) lanes.push({ ...wanted, kind: 'deletion', audience });
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

/** Whether row `idColumn` has the word (the terms' primary key). */
/** Whether the row has the word (or one of the words): one lookup in the terms' primary key. */
function hasTerm(idColumn: string, word: string | readonly string[]) {
  const terms = typeof word === 'string' ? [word] : word;
  return terms.length === 1
    ? sql<boolean>`exists (select 1 from history_terms as other where other.history_id = ${sql.ref(idColumn)} and other.term = ${terms[0]})`
    : sql<boolean>`exists (select 1 from history_terms as other where other.history_id = ${sql.ref(idColumn)} and other.term in (${sql.join(terms)}))`;
}

/** The query's date filters and the keyset bound. */
function filtered<DB, TB extends keyof DB, O>(
  select: HistorySelect<DB, TB, O>,
  query: HistoryQuery,
  madeAt: string,
  id: string,
  engine: 'sqlite' | 'postgres',
): HistorySelect<DB, TB, O> {
  let out = select;
  if (query.from) out = out.where(sql<boolean>`${sql.ref(madeAt)} >= ${query.from.toISOString()}`);
  if (query.until) out = out.where(sql<boolean>`${sql.ref(madeAt)} < ${query.until.toISOString()}`);
  const cursor = query.cursor;
  if (cursor) {
    const newer = query.direction === 'newer';
    const after = newer
      ? sql<boolean>`(${sql.ref(madeAt)}, ${sql.ref(id)}) > (${cursor.madeAt}, ${cursor.id})`
      : sql<boolean>`(${sql.ref(madeAt)}, ${sql.ref(id)}) < (${cursor.madeAt}, ${cursor.id})`;
    // PostgreSQL: the time alone first, so the index range starts there; then the tie on the same time by id.
    // SQLite reads the pair itself as the index range, and given the time too it skip-scans and sorts the rest.
    const time = newer
      ? sql<boolean>`${sql.ref(madeAt)} >= ${cursor.madeAt}`
      : sql<boolean>`${sql.ref(madeAt)} <= ${cursor.madeAt}`;
    out = out.where(engine === 'postgres' ? sql<boolean>`${time} and ${after}` : after);
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
