import { sql } from 'kysely';
import { expect, it } from 'vitest';
import { openDatabase } from '../../../src/platform/store/open-database.js';
import { openStore } from '../../../src/platform/store/store.js';
import { appMigrator, describeEachEngine } from '../../kit/store-engines.js';

describeEachEngine('migration 013 (home tabs by workspace)', (engine, create) => {
  it('keeps the Homes of a database that ran 001-012, those without a workspace adopted later', async () => {
    const database = await create();
    const db = openDatabase(database.location);
    const migrator = await appMigrator(db, engine);
    const to012 = await migrator.migrateTo('012-workspaces');
    expect(to012.error).toBeUndefined();
    await sql`insert into home_tabs (user_id, team_id, hash, published_at) values
      ('U1', null, 'h1', '2024-01-01T00:00:00.000Z'),
      ('U2', 'T1', 'h2', '2024-01-01T00:00:00.000Z'),
      ('U3', null, null, '2024-01-01T00:00:00.000Z')`.execute(db);
    await db.destroy();

    const store = openStore(database.location);
    await store.migrate();
    // Every Home there is: those of T1 and those of no workspace ('').
    const allHomes = async () => [
      ...(await store.homeTabs.inWorkspace('T1')),
      ...(await store.homeTabs.inWorkspace('')),
    ];
    const byUser = (tabs: Array<{ userId: string }>) => tabs.sort((a, b) => a.userId.localeCompare(b.userId));
    expect(byUser(await allHomes())).toEqual([
      { userId: 'U1', teamId: undefined, hash: 'h1' },
      { userId: 'U2', teamId: 'T1', hash: 'h2' },
      { userId: 'U3', teamId: undefined, hash: undefined },
    ]);
    await store.homeTabs.save({ userId: 'U1', teamId: 'T1', hash: 'new' }, new Date('2024-02-01T00:00:00Z'));
    expect(await store.adoptRowsWithoutWorkspace('T1')).toBe(1);
    expect(byUser(await allHomes())).toEqual([
      { userId: 'U1', teamId: 'T1', hash: 'new' },
      { userId: 'U2', teamId: 'T1', hash: 'h2' },
      { userId: 'U3', teamId: 'T1', hash: undefined },
    ]);
    await store.close();

    // And back down to 012: one row per user again.
    const db2 = openDatabase(database.location);
    const back = await appMigrator(db2, engine);
    expect((await back.migrateTo('012-workspaces')).error).toBeUndefined();
    const rows = await sql<{
      user_id: string;
      team_id: string | null;
    }>`select user_id, team_id from home_tabs order by user_id`.execute(db2);
    expect(rows.rows).toEqual([
      { user_id: 'U1', team_id: 'T1' },
      { user_id: 'U2', team_id: 'T1' },
      { user_id: 'U3', team_id: 'T1' },
    ]);
    await db2.destroy();
    await database.drop();
  });
});
