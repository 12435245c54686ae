import { setTimeout as sleep } from 'node:timers/promises';
import { sql, type Kysely, type QueryExecutorProvider } from 'kysely';
import pg from 'pg';
import type { Logger } from '../ops/telemetry/create-logger.js';

/**
 * What every replica must learn at once, by what changed: an installation (installed, renewed, uninstalled),
 * a workspace's Mint account (connected, replaced, removed, refused), a workspace's settings, a workspace
 * joining or leaving an org-wide installation, a bulk job given work for the background (started, resumed,
 * cancelled, its rows all settled).
 */
export type ChangeTopic = 'installation' | 'mint-account' | 'workspace-settings' | 'org-workspace' | 'bulk-job';

export interface Change {
  topic: ChangeTopic;
  /** The key of what changed within its topic (an installation id, a team id). */
  id: string;
}

const TOPICS: ReadonlySet<string> = new Set<ChangeTopic>([
  'installation',
  'mint-account',
  'workspace-settings',
  'org-workspace',
  'bulk-job',
]);

/**
 * One mechanism for the changes every replica must learn: the writer announces a change in the transaction
 * that makes it, and every replica's subscribers are told. A subscriber is told "look again at this id" (it
 * reads the row itself, so a change told twice, or told for a write that rolled back, costs one read and
 * nothing else), and "catch up" when changes may have been missed (it compares the versions of what it
 * keeps with the database's).
 */
export interface ChangeFeed {
  readonly engine: 'sqlite' | 'postgres';
  /**
   * Announces `change` through `db` (the write's own transaction when there is one): on PostgreSQL a NOTIFY,
   * delivered to every replica when the transaction commits and never when it rolls back.
   */
  announce(db: QueryExecutorProvider, change: Change): Promise<void>;
  /** Calls `changed` with the id of each change of `topic` (on every replica, this one too). */
  on(topic: ChangeTopic, changed: (id: string) => void): void;
  /** Calls `catchUp` whenever changes may have been missed (a reconnection; see catchUpEveryMs). */
  onCatchUp(catchUp: () => Promise<void>): void;
  /**
   * How often the subscribers should catch up on their own, or undefined when the feed tells them whenever
   * they must. On SQLite changes are told within the process only: other processes on the same file learn
   * them by this slow poll.
   */
  readonly catchUpEveryMs: number | undefined;
  /** Resolves once changes from other replicas are being received (at once in process). */
  listening(): Promise<void>;
  /** Runs every subscriber's catch-up now. */
  catchUp(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Several processes on one SQLite file learn each other's changes within this: an uninstall or a removed Mint
 * key must stop being used everywhere at once, and the comparison is one small read per kind of row kept.
 */
export const SQLITE_CATCH_UP_MS = 1_000;

/** The feed's subscribers, and telling them. */
class Subscribers {
  private readonly byTopic = new Map<ChangeTopic, Array<(id: string) => void>>();
  private readonly catchUps: Array<() => Promise<void>> = [];

  constructor(private readonly logger: Logger | undefined) {}

  on(topic: ChangeTopic, changed: (id: string) => void): void {
    const listeners = this.byTopic.get(topic) ?? [];
    listeners.push(changed);
    this.byTopic.set(topic, listeners);
  }

  onCatchUp(catchUp: () => Promise<void>): void {
    this.catchUps.push(catchUp);
  }

  get any(): boolean {
    return this.byTopic.size > 0 || this.catchUps.length > 0;
  }

  tell(change: Change): void {
    for (const changed of this.byTopic.get(change.topic) ?? []) {
      try {
        changed(change.id);
      } catch (error) {
        this.logger?.warn({ err: error, topic: change.topic }, 'a subscriber of the change feed failed');
      }
    }
  }

  /** Every catch-up, all of them tried; the first failure is thrown after the others ran. */
  async catchUp(): Promise<void> {
    const results = await Promise.allSettled(this.catchUps.map((catchUp) => catchUp()));
    const failed = results.find((result) => result.status === 'rejected');
    if (failed) throw failed.reason;
  }
}

/**
 * SQLite: one process writes and reads its database, so a change is told to the process's subscribers after
 * the statement that announced it (a read they make waits for the write's transaction: the connection is one).
 */
export class InProcessChangeFeed implements ChangeFeed {
  readonly engine = 'sqlite';
  readonly catchUpEveryMs = SQLITE_CATCH_UP_MS;
  private readonly subscribers: Subscribers;

  constructor(logger?: Logger) {
    this.subscribers = new Subscribers(logger);
  }

  announce(_db: QueryExecutorProvider, change: Change): Promise<void> {
    setImmediate(() => this.subscribers.tell(change));
    return Promise.resolve();
  }

  on(topic: ChangeTopic, changed: (id: string) => void): void {
    this.subscribers.on(topic, changed);
  }

  onCatchUp(catchUp: () => Promise<void>): void {
    this.subscribers.onCatchUp(catchUp);
  }

  listening(): Promise<void> {
    return Promise.resolve();
  }

  catchUp(): Promise<void> {
    return this.subscribers.catchUp();
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

/** The channel of one database schema: replicas of another app (or test) on the same server hear nothing. */
const CHANNEL_OF_SCHEMA = sql<string>`'mintlink_changes_' || md5(current_schema())`;

/** Waits between attempts to listen again after the connection is lost (then the last one, repeated). */
const RECONNECT_BACKOFF_MS = [100, 500, 1_000, 2_000, 5_000];

/**
 * PostgreSQL: a write announces its change with NOTIFY in its own transaction, and every replica LISTENs on a
 * dedicated connection (opened at the first subscription). When that connection is lost, the replica
 * connects again (backing off), listens, and then has its subscribers catch up with what changed meanwhile.
 */
export class PostgresChangeFeed implements ChangeFeed {
  readonly engine = 'postgres';
  readonly catchUpEveryMs = undefined;
  private readonly subscribers: Subscribers;
  private client: pg.Client | undefined;
  private pid: number | undefined;
  private closed = false;
  private connecting: Promise<void> | undefined;
  private listened: Promise<void>;
  private markListening: () => void = () => undefined;
  private readonly stopped = new AbortController();

  constructor(
    private readonly url: string,
    private readonly logger?: Logger,
  ) {
    this.subscribers = new Subscribers(logger);
    this.listened = this.nextListening();
  }

  async announce(db: QueryExecutorProvider, change: Change): Promise<void> {
    await sql`select pg_notify(${CHANNEL_OF_SCHEMA}, ${`${change.topic} ${change.id}`})`.execute(db);
  }

  on(topic: ChangeTopic, changed: (id: string) => void): void {
    this.subscribers.on(topic, changed);
    this.startListening();
  }

  onCatchUp(catchUp: () => Promise<void>): void {
    this.subscribers.onCatchUp(catchUp);
    this.startListening();
  }

  listening(): Promise<void> {
    return this.listened;
  }

  catchUp(): Promise<void> {
    return this.subscribers.catchUp();
  }

  /** The server process of the LISTEN connection, while there is one (tests end it to check the reconnection). */
  get listenerPid(): number | undefined {
    return this.client ? this.pid : undefined;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.stopped.abort();
    // The connection first: the loop below waits for it to end.
    const { client } = this;
    this.client = undefined;
    await client?.end().catch(() => undefined);
    await this.connecting?.catch(() => undefined);
  }

  private nextListening(): Promise<void> {
    return new Promise((resolve) => (this.markListening = resolve));
  }

  private startListening(): void {
    if (this.connecting || this.closed) return;
    this.connecting = this.listenUntilClosed().finally(() => (this.connecting = undefined));
  }

  /** Connects and listens; on a connection lost, again (backing off while it fails), until closed. */
  private async listenUntilClosed(): Promise<void> {
    for (let failures = 0; !this.closed;) {
      const listened = await this.listenOnce().catch((error: unknown) => {
        this.logger?.warn({ err: error }, 'could not listen for changes; trying again');
        return false;
      });
      if (this.closed) return;
      failures = listened ? 0 : failures + 1;
      const wait = RECONNECT_BACKOFF_MS[Math.min(failures, RECONNECT_BACKOFF_MS.length - 1)] ?? 5_000;
      await sleep(wait, undefined, { signal: this.stopped.signal }).catch(() => undefined);
    }
  }

  /**
   * One connection: LISTEN, then catch up. Settles when the connection ends: true when it listened and caught
   * up, false when the catch-up failed (the connection is then ended, and the next one catches up again).
   */
  private async listenOnce(): Promise<boolean> {
    const client = new pg.Client({ connectionString: this.url, connectionTimeoutMillis: 5_000 });
    let ended!: () => void;
    const lost = new Promise<void>((resolve) => (ended = resolve));
    client.on('error', (error) => {
      if (!this.closed) this.logger?.warn({ err: { message: error.message } }, 'change feed connection lost');
      ended();
    });
    client.on('end', () => ended());
    client.on('notification', (message) => {
      const change = parseChange(message.payload);
      if (change) this.subscribers.tell(change);
    });
    try {
      await client.connect();
      const { rows } = await client.query<{ channel: string; pid: number }>(
        `select 'mintlink_changes_' || md5(current_schema()) as channel, pg_backend_pid() as pid`,
      );
      const channel = rows[0]?.channel;
      if (!channel) throw new Error('no channel for this schema');
      await client.query(`listen "${channel}"`);
      this.pid = rows[0]?.pid;
    } catch (error) {
      await client.end().catch(() => undefined);
      throw error;
    }
    if (this.closed) {
      await client.end().catch(() => undefined);
      return false;
    }
    this.client = client;
    // What changed while nobody here listened (before the first connection, or while it was lost).
    try {
      await this.subscribers.catchUp();
    } catch (error) {
      // Tables not made yet (a replica listening before the migrations ran): nothing kept can be out of date.
      if (isUndefinedTable(error)) return this.listenUntilLost(client, lost);
      // Changes may have been missed: this connection goes, and the next one catches up again.
      this.logger?.warn({ err: error }, 'could not catch up with the changes made while not listening');
      this.client = undefined;
      await client.end().catch(() => undefined);
      return false;
    }
    return this.listenUntilLost(client, lost);
  }

  /** Listening and caught up: settles (true) when the connection ends. */
  private async listenUntilLost(client: pg.Client, lost: Promise<void>): Promise<boolean> {
    this.markListening();
    await lost;
    if (this.client === client) this.client = undefined;
    this.listened = this.nextListening();
    return true;
  }
}

/** PostgreSQL's "relation does not exist". */
function isUndefinedTable(error: unknown): boolean {
  return typeof error === 'object' && error !== null && 'code' in error && error.code === '42P01';
}

function parseChange(payload: string | undefined): Change | undefined {
  if (!payload) return undefined;
  const space = payload.indexOf(' ');
  const topic = payload.slice(0, space);
  if (space < 1 || !isTopic(topic)) return undefined;
  return { topic, id: payload.slice(space + 1) };
}

function isTopic(topic: string): topic is ChangeTopic {
  return TOPICS.has(topic);
}

/**
 * Runs a write and announces the change it made (`changed` of its result; undefined: it changed nothing) in
 * one transaction: the write's own when `db` is one, else one opened here on PostgreSQL (where the NOTIFY
 * must commit with the write). On SQLite the write runs as it is and the change is told after it.
 */
export async function writeAndAnnounce<DB, T>(
  db: Kysely<DB>,
  feed: Pick<ChangeFeed, 'announce' | 'engine'>,
  write: (db: Kysely<DB>) => Promise<T>,
  changed: (result: T) => Change | Change[] | undefined,
): Promise<T> {
  const run = async (executor: Kysely<DB>) => {
    const result = await write(executor);
    const changes = changed(result);
    for (const change of changes === undefined ? [] : [changes].flat()) await feed.announce(executor, change);
    return result;
  };
  if (db.isTransaction || feed.engine === 'sqlite') return run(db);
  return db.transaction().execute(run);
}
