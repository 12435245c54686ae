import {
  CompiledQuery,
  SqliteAdapter,
  SqliteDialect,
  SqliteDriver,
  type DatabaseConnection,
  type SqliteDialectConfig,
} from 'kysely';

/**
 * Kysely's SQLite dialect, changed for several processes on one database file:
 * - transactions start with BEGIN IMMEDIATE, taking the write lock up front, so a second process waits
 *   (busy_timeout) instead of failing when its deferred read would have to become a write;
 * - migrations run in one such transaction (SQLite's DDL is transactional), so two processes starting at
 *   once apply them one after the other rather than racing (Kysely takes no migration lock on SQLite);
 * - several connections of one process to one file (replicas started in one test process) take turns,
 *   waiting without blocking: better-sqlite3 waits out a lock synchronously, so one connection waiting for
 *   another's transaction would block the very event loop that transaction needs to end (busy_timeout, 5 s,
 *   lost for nothing each time). The connections that take turns are those given one SqliteFileTurns.
 */
export class MultiProcessSqliteDialect extends SqliteDialect {
  /**
   * `file`: the database file's path and the turns its connections take; none for a database in memory, which
   * no other connection sees.
   */
  constructor(
    private readonly settings: SqliteDialectConfig,
    private readonly file?: { path: string; turns: SqliteFileTurns },
  ) {
    super(settings);
  }

  override createDriver(): SqliteDriver {
    return new ImmediateTransactionDriver(this.settings, this.file);
  }

  override createAdapter(): SqliteAdapter {
    return new TransactionalDdlAdapter();
  }
}

/**
 * The turns that connections of one process take on each SQLite file. A store makes its own (the app opens one
 * store per process); a test that opens several stores on one file in its process (replicas, its own reads of
 * the app's database) gives them all one.
 */
export class SqliteFileTurns {
  /** The end of the queue of the connections to each file: a connection in use holds its place. */
  private readonly queues = new Map<string, Promise<void>>();

  /** Waits for the other connections to `file` to be done with it; resolves with the end of its turn. */
  async take(file: string): Promise<() => void> {
    const before = this.queues.get(file) ?? Promise.resolve();
    let endTurn: () => void = () => undefined;
    const turn = new Promise<void>((resolve) => (endTurn = resolve));
    const queue = before.then(() => turn);
    this.queues.set(file, queue);
    await before;
    return () => {
      endTurn();
      if (this.queues.get(file) === queue) this.queues.delete(file);
    };
  }
}

class ImmediateTransactionDriver extends SqliteDriver {
  private endTurn: (() => void) | undefined;

  constructor(
    config: SqliteDialectConfig,
    private readonly file: { path: string; turns: SqliteFileTurns } | undefined,
  ) {
    super(config);
  }

  override async acquireConnection(): Promise<DatabaseConnection> {
    // Kysely hands out SQLite's one connection to one user at a time; this queue does the same across the
    // drivers given the same turns (only tests open several stores on one file in one process).
    const endTurn = this.file ? await this.file.turns.take(this.file.path) : undefined;
    const connection = await super.acquireConnection();
    this.endTurn = endTurn;
    return connection;
  }

  override async releaseConnection(): Promise<void> {
    const endTurn = this.endTurn;
    this.endTurn = undefined;
    await super.releaseConnection();
    endTurn?.();
  }

  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }
}

class TransactionalDdlAdapter extends SqliteAdapter {
  override get supportsTransactionalDdl(): boolean {
    return true;
  }
}
