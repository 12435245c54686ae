import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Migrator, sql, type Kysely } from 'kysely';
import pg from 'pg';
import { afterEach, beforeEach, describe } from 'vitest';
import type { StoreLocation } from '../../src/platform/ops/config/config.js';
import { migrationProvider } from '../../src/platform/store/migrations/index.js';
import { openStore, type Store } from '../../src/platform/store/store.js';
import { SqliteFileTurns } from '../../src/platform/store/sqlite-dialect.js';

/** PostgreSQL for store tests; CI sets it (see .ci/run). */
export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL;

export interface TestDatabase {
  location: StoreLocation;
  /** The same location as a DATABASE_URL value, for app processes. */
  databaseUrl: string;
  /**
   * Says the test is done with it. A PostgreSQL schema stays until the test run ends (test/global-setup.ts
   * drops them all then): a schema dropped while another test's migrator reads the catalog fails that read.
   */
  drop(): Promise<void>;
}

/**
 * The turns taken on each SQLite file by every store this test process opens on it while an app started in
 * the process has its own store there (replicas, the test's reads of the app's database): better-sqlite3 waits
 * out another connection's lock synchronously, so connections of one process must take turns (SqliteFileTurns).
 */
export const TEST_PROCESS_SQLITE_TURNS = new SqliteFileTurns();

/** A fresh, empty SQLite file. */
export function sqliteDatabase(): TestDatabase {
  const path = join(mkdtempSync(join(tmpdir(), 'mintlink-db-')), 'test.sqlite');
  return { location: { engine: 'sqlite', path }, databaseUrl: `file:${path}`, drop: async () => undefined };
}

/** A fresh schema in the test PostgreSQL, reached through search_path so the app's SQL is unchanged. */
export async function postgresDatabase(): Promise<TestDatabase> {
  if (!TEST_DATABASE_URL) throw new Error('set TEST_DATABASE_URL');
  // Named after the test run, whose end drops whatever a test left (test/global-setup.ts).
  const schema = `${testSchemaPrefix()}${randomUUID().replace(/-/g, '').slice(0, 12)}`;
  const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await admin.connect();
  await admin.query(`create schema ${schema}`);
  await admin.end();
  const url = new URL(TEST_DATABASE_URL);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return {
    location: { engine: 'postgres', url: url.toString() },
    databaseUrl: url.toString(),
    drop: async () => undefined,
  };
}

/** Every schema of this test run starts with this (the run id comes from test/global-setup.ts). */
export function testSchemaPrefix(run = process.env.MINTLINK_TEST_RUN ?? 'norun'): string {
  return `mintlink_test_${run}_`;
}

export type EngineName = 'sqlite' | 'postgres';

/**
 * Runs a suite once per engine. Without TEST_DATABASE_URL the PostgreSQL run is skipped, and says so.
 */
export function describeEachEngine(
  title: string,
  suite: (engine: EngineName, create: () => Promise<TestDatabase>) => void,
): void {
  describe(`${title} [sqlite]`, () => suite('sqlite', async () => sqliteDatabase()));
  if (TEST_DATABASE_URL) {
    describe(`${title} [postgres]`, () => suite('postgres', postgresDatabase));
  } else {
    process.stdout.write(`${title} [postgres]: skipped: set TEST_DATABASE_URL\n`);
    describe.skip(`${title} [postgres] (skipped: set TEST_DATABASE_URL)`, () => suite('postgres', postgresDatabase));
  }
}

/**
 * For each test of a suite (see describeEachEngine): a database of its own with the app's store on it,
 * migrated; after the test the store, and every other connection the test opened with `open`, is closed and
 * the database dropped.
 */
export function useMigratedStore(create: () => Promise<TestDatabase>) {
  let db: TestDatabase | undefined;
  let store: Store | undefined;
  const others: Store[] = [];
  beforeEach(async () => {
    db = await create();
    store = openStore(db.location);
    await store.migrate();
  });
  afterEach(async () => {
    for (const other of others.splice(0)) await other.close();
    await store?.close();
    await db?.drop();
  });
  const current = () => {
    if (!db || !store) throw new Error('the store is opened before each test');
    return { db, store };
  };
  return {
    get db(): TestDatabase {
      return current().db;
    },
    get store(): Store {
      return current().store;
    },
    /** Another connection to the test's database (another replica), closed after the test. */
    open(): Store {
      const other = openStore(current().db.location);
      others.push(other);
      return other;
    },
  };
}

/**
 * The app's migrations on `db`, stepped through one by one by a migration test (migrateTo a name, seed rows as an
 * older version left them, then migrateToLatest). On PostgreSQL its own table lives in the test's schema.
 */
export async function appMigrator<DB>(db: Kysely<DB>, engine: EngineName): Promise<Migrator> {
  const schema =
    engine === 'postgres'
      ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(db)).rows[0]?.schema
      : undefined;
  return new Migrator({ db, provider: migrationProvider, ...(schema ? { migrationTableSchema: schema } : {}) });
}
