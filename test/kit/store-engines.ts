import { randomUUID } from 'node:crypto';
import { copyFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Kysely, Migrator, sql } from 'kysely';
import pg from 'pg';
import { afterEach, beforeEach, describe } from 'vitest';
import type { StoreLocation } from '../../src/platform/ops/config/config.js';
import { migrationProvider } from '../../src/platform/store/migrations/index.js';
import { PostgresDialectLightIntrospection } from '../../src/platform/store/postgres-dialect.js';
import { openStore, type Store } from '../../src/platform/store/store.js';
import { SqliteFileTurns } from '../../src/platform/store/sqlite-dialect.js';

/** PostgreSQL for store tests; CI sets it (see .ci/run). */
export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL;

export interface TestDatabase {
  location: StoreLocation;
  /** The same location as a DATABASE_URL value, for app processes. */
  databaseUrl: string;
  /** PostgreSQL: the test's schema, on the search path of `location` and `databaseUrl`. */
  schema?: string;
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
  await kitConnections().query(`create schema ${schema}`);
  const url = new URL(TEST_DATABASE_URL);
  // A commit returns without waiting for its WAL to reach the disk (what a crash of the server could lose, which
  // no test looks at): the waits were much of a PostgreSQL test's time. What other connections see is unchanged.
  url.searchParams.set('options', `-c search_path=${schema} -c synchronous_commit=off`);
  return {
    location: { engine: 'postgres', url: url.toString() },
    schema,
    databaseUrl: url.toString(),
    drop: async () => undefined,
  };
}

let kitPool: pg.Pool | undefined;

/**
 * The kit's own connections to the test PostgreSQL, which make, migrate and empty every test's schema: a
 * connection of its own for each would cost a test two connection starts (a server process each), and a kept
 * connection has the schemas' table descriptions loaded already (most of an emptying's time otherwise). They never
 * keep the worker alive.
 */
function kitConnections(): pg.Pool {
  if (!TEST_DATABASE_URL) throw new Error('set TEST_DATABASE_URL');
  kitPool ??= new pg.Pool({
    connectionString: TEST_DATABASE_URL,
    max: 2,
    idleTimeoutMillis: 60_000,
    allowExitOnIdle: true,
    lock_timeout: 2_000, // rows a test's connection left open still locks: that schema is not emptied
  });
  return kitPool;
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
 * the database dropped, or on PostgreSQL emptied for a next test (see emptiedForReuse).
 */
export function useMigratedStore(create: () => Promise<TestDatabase>) {
  let db: TestDatabase | undefined;
  let store: Store | undefined;
  const others: Store[] = [];
  beforeEach(async () => {
    db = emptiedDatabases.get(create)?.pop() ?? (await migratedNew(create));
    store = openStore(db.location);
  });
  afterEach(async () => {
    for (const other of others.splice(0)) await other.close();
    await store?.close();
    const done = db;
    db = undefined;
    if (!done) return;
    if (await emptiedForReuse(done)) {
      emptiedDatabases.set(create, [...(emptiedDatabases.get(create) ?? []), done]);
    } else {
      await done.drop();
    }
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
 * Brings a fresh database to where the app's migrations leave it, at a fraction of their cost: the store tests
 * open hundreds of databases, and migrating each one was most of their time (about 0.1 s on SQLite and 0.5 s on
 * PostgreSQL, many round trips each). Once per worker a database is migrated by the app's migrator; a SQLite
 * database is then a copy of its file, a PostgreSQL schema gets the SQL that migrator ran, in one round trip.
 * test/kit/store-engines.test.ts checks that both end as the migrator leaves a database.
 */
export async function migrated(db: TestDatabase): Promise<void> {
  const { location } = db;
  if (location.engine === 'sqlite') {
    copyFileSync(await (sqliteTemplate ??= migratedSqliteFile()), location.path);
    return;
  }
  const target = db.schema;
  if (!target) throw new Error(`not a test schema (postgresDatabase): ${location.url}`);
  const { schema, script } = await (postgresScript ??= migrationScript());
  const client = await kitConnections().connect();
  try {
    await client.query(`begin;\nset local search_path to ${target};\n${script.replaceAll(schema, target)};\ncommit`);
  } catch (error) {
    client.release(true); // left in a failed transaction: not for another test
    throw error;
  }
  client.release();
}

let sqliteTemplate: Promise<string> | undefined;
let postgresScript: Promise<MigrationScript> | undefined;

interface MigrationScript {
  /** The schema the app's migrator migrated, named in `script` and `emptying`. */
  schema: string;
  script: string;
  /** One statement emptying a migrated schema that a test is done with, and reading its fingerprint. */
  emptying: string;
  /** The fingerprint of a schema as migrated (see emptyingStatement). */
  fingerprint: string;
}

/** A new database from `create`, migrated. */
async function migratedNew(create: () => Promise<TestDatabase>): Promise<TestDatabase> {
  const db = await create();
  await migrated(db);
  return db;
}

/**
 * Migrated PostgreSQL schemas that tests of this worker were done with, emptied, by the function that made
 * them, for the next test to take: making one (a schema, then the migration script: hundreds of catalog rows) was
 * most of a PostgreSQL store test's time.
 */
const emptiedDatabases = new Map<() => Promise<TestDatabase>, TestDatabase[]>();

/**
 * Empties a test's PostgreSQL schema of every row the test wrote, once every connection of the test is closed,
 * and says whether it is now as migrated. It is not (and is left to the end of the run) when the test changed
 * more than rows: a table, column, index or constraint, a sequence used, the migrator's own rows; or when its
 * rows stay locked by a connection still open.
 */
async function emptiedForReuse(db: TestDatabase): Promise<boolean> {
  if (db.location.engine !== 'postgres' || !db.schema || !postgresScript) return false;
  const { schema, emptying, fingerprint } = await postgresScript;
  try {
    const { rows } = await kitConnections().query<{ fingerprint: string }>(emptying.replaceAll(schema, db.schema));
    return rows[0]?.fingerprint === fingerprint;
  } catch {
    return false;
  }
}

/**
 * The statement emptying migrated schema `schema` after a test: it deletes the rows of every table that migrations
 * leave empty, all in one statement so that no foreign key orders them, and reads a fingerprint of what else the
 * schema holds, the same for every schema as migrated whatever its name.
 */
async function emptyingStatement(schema: string): Promise<string> {
  const pool = kitConnections();
  const { rows: tables } = await pool.query<{ name: string }>(
    'select tablename as name from pg_tables where schemaname = $1 order by tablename',
    [schema],
  );
  const table = (name: string) => `${schema}."${name.replaceAll('"', '""')}"`;
  const empty: string[] = [];
  const kept: string[] = [];
  for (const { name } of tables) {
    const { rows } = await pool.query<{ some: boolean }>(`select exists (select from ${table(name)}) as some`);
    (rows[0]?.some ? kept : empty).push(name);
  }
  const deletes = empty.map((name, i) => `d${i} as (delete from ${table(name)})`);
  const here = `'${schema}'::regnamespace`;
  const parts = [
    `select string_agg(relname || ' ' || relkind::text, ',' order by relname) from pg_class where relnamespace = ${here}`,
    `select string_agg(c.relname || '.' || a.attname || ' ' || format_type(a.atttypid, a.atttypmod) || ' ' ||
       a.attnotnull || ' ' || coalesce(pg_get_expr(d.adbin, d.adrelid), ''), ',' order by c.relname, a.attnum)
       from pg_attribute a join pg_class c on c.oid = a.attrelid
       left join pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum
       where c.relnamespace = ${here} and a.attnum > 0 and not a.attisdropped`,
    `select string_agg(conname || ' ' || pg_get_constraintdef(oid), ',' order by conname)
       from pg_constraint where connamespace = ${here}`,
    `select string_agg(c.relname || ' ' || pg_get_indexdef(i.indexrelid), ',' order by c.relname)
       from pg_index i join pg_class c on c.oid = i.indexrelid where c.relnamespace = ${here}`,
    `select string_agg(tgname || ' ' || pg_get_triggerdef(t.oid), ',' order by tgname)
       from pg_trigger t join pg_class c on c.oid = t.tgrelid where c.relnamespace = ${here} and not t.tgisinternal`,
    `select string_agg(proname || ' ' || prosrc, ',' order by proname) from pg_proc where pronamespace = ${here}`,
    `select string_agg(sequencename || ' ' || coalesce(last_value::text, 'unused'), ',' order by sequencename)
       from pg_sequences where schemaname = '${schema}'`,
    ...kept.map((name) => `select string_agg(t::text, ',' order by t::text) from ${table(name)} t`),
  ];
  // Definitions name the schema: left out, so that every schema as migrated has one fingerprint.
  const described = `concat_ws(E'\\n', ${parts.map((part) => `(${part})`).join(',\n')})`;
  const fingerprint = `select md5(replace(${described}, '${schema}.', '')) as fingerprint`;
  return deletes.length === 0 ? fingerprint : `with ${deletes.join(',\n')}\n${fingerprint}`;
}

async function migratedSqliteFile(): Promise<string> {
  const { location } = sqliteDatabase();
  const store = openStore(location);
  try {
    await store.migrate();
  } finally {
    await store.close();
  }
  if (location.engine !== 'sqlite') throw new Error('a SQLite database has a SQLite location');
  return location.path;
}

/**
 * The statements the app's migrator runs on an empty schema (the store's own dialect, the store's own migrator
 * settings through appMigrator) that change it, with their parameters written in as literals, outside their
 * transaction.
 */
async function migrationScript(): Promise<MigrationScript> {
  const { location } = await postgresDatabase();
  if (location.engine !== 'postgres') throw new Error('a PostgreSQL database has a PostgreSQL location');
  const statements: string[] = [];
  const pool = new pg.Pool({ connectionString: location.url, max: 1 });
  const db = new Kysely<unknown>({
    dialect: new PostgresDialectLightIntrospection({ pool }),
    log: (event) => {
      if (event.level === 'query') statements.push(withLiterals(event.query.sql, event.query.parameters));
    },
  });
  try {
    const schema = (await sql<{ schema: string }>`select current_schema() as schema`.execute(db)).rows[0]?.schema;
    if (!schema) throw new Error('no current schema');
    statements.length = 0;
    const { error } = await (await appMigrator(db, 'postgres')).migrateToLatest();
    if (error) throw error instanceof Error ? error : new Error(JSON.stringify(error));
    const script = statements.filter((statement) => !LEFT_OUT.test(statement)).join(';\n');
    const emptying = await emptyingStatement(schema);
    const fingerprint = (await kitConnections().query<{ fingerprint: string }>(emptying)).rows[0]?.fingerprint;
    if (!fingerprint) throw new Error('no fingerprint of the migrated schema');
    return { schema, script, emptying, fingerprint };
  } finally {
    await db.destroy();
  }
}

/**
 * Statements of the migrator that the script leaves out: its transaction's (the script has its own) and its reads,
 * which change nothing. Among the reads is the migrator's lock, a PostgreSQL advisory lock of one fixed id for every
 * schema: every test's schema and every app process a test starts would wait for it in turn, while a test's new
 * schema has no other migrator to wait for.
 */
const LEFT_OUT = /^\s*(begin|commit|rollback|select|with\s+set_timeout\b)\b/i;

function withLiterals(text: string, parameters: readonly unknown[]): string {
  if (parameters.length === 0) return text;
  return text.replace(/\$(\d+)/g, (_, index: string) => literal(parameters[Number(index) - 1]));
}

function literal(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'number' || typeof value === 'bigint') return String(value);
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'string') return `'${value.replaceAll("'", "''")}'`;
  if (value instanceof Date) return `'${value.toISOString()}'`;
  throw new Error(`a migration parameter the test kit cannot write as SQL: ${typeof value}`);
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
