import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, type LogEvent } from 'kysely';
import pg from 'pg';
import type { StoreLocation } from '../ops/config/config.js';
import { SqliteFileError, sqliteFileProblem } from '../ops/lifecycle/sqlite-file-problem.js';
import type { Logger } from '../ops/telemetry/create-logger.js';
import { PostgresDialectLightIntrospection } from './postgres-dialect.js';
import { MultiProcessSqliteDialect, SqliteFileTurns } from './sqlite-dialect.js';
import type { Tables } from './tables.js';
import { pastSpan } from '../ops/telemetry/tracing.js';

/** How long a connection to an SQLite file waits for another process's lock before failing with SQLITE_BUSY. */
export const SQLITE_BUSY_TIMEOUT_MS = 5_000;

/**
 * One Kysely instance over SQLite (embedded, no server) or PostgreSQL; the queries are the same.
 *
 * SQLite's file is opened at once, and written to once, so an unusable path is found at start: it throws a
 * SqliteFileError saying why in one line (a directory, under a file, not a database, no permission,
 * read-only). When the file may become usable by itself (locked by another process, disk full), it does not
 * throw: the file is opened again at the next query, and that query's failure says why (/readyz shows it).
 * `turns`: shared by every database opened on one file in this process (see SqliteFileTurns); its own otherwise.
 * `busyTimeoutMs`: how long SQLite waits for a lock held by another process before failing (5 s in the app).
 */
export function openDatabase(
  location: StoreLocation,
  logger?: Logger,
  turns: SqliteFileTurns = new SqliteFileTurns(),
  busyTimeoutMs = SQLITE_BUSY_TIMEOUT_MS,
): Kysely<Tables> {
  if (location.engine === 'sqlite') {
    const { path } = location;
    let database: SQLite.Database | (() => Promise<SQLite.Database>);
    try {
      database = openSqlite(path, busyTimeoutMs);
    } catch (error) {
      if (!(error instanceof SqliteFileError) || error.problem.lasting) throw error;
      logger?.warn({ reason: error.summary }, 'database not usable yet; trying again at the next query');
      database = () => Promise.resolve(openSqlite(path, busyTimeoutMs));
    }
    const file = path === ':memory:' ? undefined : { path: resolve(path), turns };
    return new Kysely<Tables>({
      dialect: new MultiProcessSqliteDialect({ database }, file),
      log: querySpans('sqlite'),
    });
  }
  const pool = new pg.Pool({
    connectionString: location.url,
    max: 10,
    connectionTimeoutMillis: 5_000,
    idleTimeoutMillis: 30_000,
  });
  // A connection dropped by the server (restart, failover, network) must not crash the process: pg-pool
  // listens on idle clients only, so every client gets a listener of its own; its query in flight fails.
  const lost = (error: Error) => logger?.warn({ err: { message: error.message } }, 'database connection lost');
  pool.on('error', lost);
  pool.on('connect', (client) => client.on('error', lost));
  return new Kysely<Tables>({
    dialect: new PostgresDialectLightIntrospection({ pool }),
    log: querySpans('postgresql'),
  });
}

/** Opens the file, creating it and its directory when missing; a problem comes as a SqliteFileError. */
function openSqlite(path: string, busyTimeoutMs: number): SQLite.Database {
  let database: SQLite.Database | undefined;
  try {
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    database = new SQLite(path);
    database.pragma(`busy_timeout = ${Math.max(0, Math.trunc(busyTimeoutMs))}`); // several processes on one file wait instead of failing
    database.pragma('journal_mode = WAL'); // readers do not wait for the writer (reads the file: not a database?)
    database.pragma('foreign_keys = ON');
    // 4 MB of page cache, not better-sqlite3's 16 MB: memory outside the capped V8 heap that one large read
    // (an audit export of 100,000 rows) would fill for good; the app's hot pages fit, the OS caches the rest.
    database.pragma('cache_size = -4000');
    // A write that changes nothing: a file SQLite could only open read-only fails here rather than at the
    // first real write (a database already in WAL mode passes the line above even then).
    const version = Number(database.pragma('user_version', { simple: true }));
    database.pragma(`user_version = ${version}`);
    return database;
  } catch (error) {
    database?.close();
    throw new SqliteFileError(path, sqliteFileProblem(path, error), error);
  }
}

/** Each query as a span of the request that made it (timed by Kysely); the statement's text stays out. */
function querySpans(system: 'sqlite' | 'postgresql'): (event: LogEvent) => void {
  return (event) => {
    const operation = /^\s*(\w+)/.exec(event.query.sql)?.[1]?.toLowerCase() ?? 'query';
    pastSpan(
      `db ${operation}`,
      event.queryDurationMillis,
      { 'db.system': system, 'db.operation': operation },
      event.level === 'error',
    );
  };
}
