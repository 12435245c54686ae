import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { openStore } from '../../../src/platform/store/store.js';
import { TEST_DATABASE_URL, postgresDatabase } from '../../kit/store-engines.js';

describe.skipIf(!TEST_DATABASE_URL)('the PostgreSQL migrator beside other schemas', () => {
  it("reads its own tables while another schema's columns come and go, never failing on theirs", async () => {
    const ours = await postgresDatabase();
    const theirs = await postgresDatabase();
    if (theirs.location.engine !== 'postgres') throw new Error('postgres');
    // Another app on the same server (or another test's schema) adds and drops a column, again and again.
    const other = new pg.Client({ connectionString: theirs.location.url });
    await other.connect();
    await other.query('create table jobs (id integer primary key)');
    let altering = true;
    let alterations = 0;
    const churn = (async () => {
      while (altering) {
        await other.query('alter table jobs add column retry_of text');
        await other.query('alter table jobs drop column retry_of');
        alterations += 1;
      }
    })();
    const store = openStore(ours.location);
    try {
      await store.migrate();
      // Each look at the migration state asks which tables exist: never about another schema's columns.
      for (let i = 0; i < 100; i += 1) expect((await store.migrationState()).pending).toEqual([]);
      expect(alterations).toBeGreaterThan(0);
    } finally {
      altering = false;
      await churn;
      await other.end();
      await store.close();
      await ours.drop();
      await theirs.drop();
    }
  });
});
