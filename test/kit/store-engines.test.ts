import SQLite from 'better-sqlite3';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { openStore } from '../../src/platform/store/store.js';
import { runSql } from './raw-sql.js';
import {
  describeEachEngine,
  migrated,
  postgresDatabase,
  TEST_DATABASE_URL,
  type TestDatabase,
  useMigratedStore,
} from './store-engines.js';

/** What a database holds besides its rows: every table, column, index and constraint, and the migrations applied. */
async function catalog(db: TestDatabase): Promise<unknown> {
  const { location } = db;
  if (location.engine === 'sqlite') {
    const sqlite = new SQLite(location.path, { readonly: true });
    try {
      return {
        objects: sqlite.prepare('select type, name, tbl_name, sql from sqlite_master order by type, name').all(),
        migrations: sqlite.prepare('select name from kysely_migration order by name').all(),
      };
    } finally {
      sqlite.close();
    }
  }
  const client = new pg.Client({ connectionString: location.url });
  await client.connect();
  try {
    const rows = async (text: string) => {
      const schema = (await client.query<{ s: string }>('select current_schema() as s')).rows[0]?.s ?? '';
      const { rows: found } = await client.query(text, [schema]);
      return JSON.parse(JSON.stringify(found).replaceAll(schema, '‹schema›'));
    };
    return {
      columns: await rows(`select table_name, column_name, data_type, is_nullable, column_default
        from information_schema.columns where table_schema = $1 order by table_name, column_name`),
      indexes: await rows(
        `select tablename, indexname, indexdef from pg_indexes where schemaname = $1 order by indexname`,
      ),
      constraints: await rows(`select conrelid::regclass::text as tbl, conname, pg_get_constraintdef(c.oid) as def
        from pg_constraint c join pg_namespace n on n.oid = c.connamespace where n.nspname = $1 order by conname`),
      sequences: await rows(`select sequence_name from information_schema.sequences where sequence_schema = $1
        order by sequence_name`),
      migrations: await rows(`select name from kysely_migration where $1 <> '' order by name`),
    };
  } finally {
    await client.end();
  }
}

describeEachEngine('a migrated test database', (_engine, create) => {
  it('is what the app’s migrator leaves, and the migrator finds nothing left to apply', async () => {
    const byMigrator = await create();
    const store = openStore(byMigrator.location);
    await store.migrate();
    await store.close();

    const copy = await create();
    await migrated(copy);
    const expected = await catalog(byMigrator);
    expect(expected).toMatchObject({ migrations: expect.arrayContaining([{ name: '001-audit-log' }]) });
    expect(await catalog(copy)).toEqual(expected);
    const reopened = openStore(copy.location);
    try {
      expect((await reopened.migrationState()).pending).toEqual([]);
    } finally {
      await reopened.close();
    }
  });
});

// The tests of this suite run in order: each looks at the schema the one before it left.
describe.skipIf(!TEST_DATABASE_URL)('a PostgreSQL schema a store test is done with', () => {
  const used = useMigratedStore(postgresDatabase);
  const account = { teamId: 'T1', sealedKey: 'sealed', keyLast4: 'AAAA', baseUrl: undefined, connectedBy: 'U1' };
  let written = '';
  let altered = '';

  it('is written to by one test', async () => {
    await used.store.mintAccountRows.save(account);
    await used.open().onceKeys.claim('key-1');
    written = used.db.databaseUrl;
  });

  it('is the next test’s, empty again and as migrated', async () => {
    expect(used.db.databaseUrl).toBe(written);
    expect(await used.store.mintAccountRows.get('T1')).toBeUndefined();
    expect(await used.store.onceKeys.claim('key-1')).toBe(true);
    const fresh = await postgresDatabase();
    await migrated(fresh);
    expect(await catalog(used.db)).toEqual(await catalog(fresh));
    expect((await used.store.migrationState()).pending).toEqual([]);
  });

  it('is changed by a test in more than its rows', async () => {
    await runSql(used.db.databaseUrl, 'alter table once_keys add column note text');
    altered = used.db.databaseUrl;
  });

  it('is then no other test’s', () => {
    expect(altered).not.toBe('');
    expect(used.db.databaseUrl).not.toBe(altered);
  });
});
