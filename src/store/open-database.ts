import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import type { StoreLocation } from '../config/config.js';
import type { Logger } from '../logging/create-logger.js';
import { MultiProcessSqliteDialect } from './sqlite-dialect.js';
import type { Tables } from './tables.js';

/** One Kysely instance over SQLite (embedded, no server) or PostgreSQL; the queries are the same. */
export function openDatabase(location: StoreLocation, logger?: Logger): Kysely<Tables> {
  if (location.engine === 'sqlite') {
    if (location.path !== ':memory:') mkdirSync(dirname(location.path), { recursive: true });
    const database = new SQLite(location.path);
    database.pragma('journal_mode = WAL'); // readers do not wait for the writer
    database.pragma('busy_timeout = 5000'); // several processes on one file wait instead of failing
    database.pragma('foreign_keys = ON');
    return new Kysely<Tables>({ dialect: new MultiProcessSqliteDialect({ database }) });
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
  return new Kysely<Tables>({ dialect: new PostgresDialect({ pool }) });
}
