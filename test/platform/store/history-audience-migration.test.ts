import { sql } from 'kysely';
import { expect, it } from 'vitest';
import { viewerAudiences } from '../../../src/capabilities/history/history-viewer.js';
import { openDatabase } from '../../../src/platform/store/open-database.js';
import { openStore } from '../../../src/platform/store/store.js';
import { askDeletion } from '../../kit/audit-seed.js';
import { appMigrator, describeEachEngine } from '../../kit/store-engines.js';

describeEachEngine('migration 021 (history audience)', (engine, create) => {
  it('gives the deletion rows already in History the approvers their requests were asked of', async () => {
    const database = await create();
    const before = openStore(database.location);
    await before.migrate();
    const ask = async (approvers: { users: string[]; userGroups: string[] }) => {
      const { requestId, entryId } = await askDeletion(before, {
        teamId: 'T1',
        requesterId: 'U_REQ',
        customerIds: ['c-1'],
        approvers,
        ttlMs: 3_600_000,
      });
      return { requestId, row: entryId };
    };
    const named = await ask({ users: ['U_APP'], userGroups: ['S_OPS'] });
    const older = await ask({ users: [], userGroups: [] });
    await before.close();

    const db = openDatabase(database.location);
    const migrator = await appMigrator(db, engine);
    expect((await migrator.migrateTo('020-history')).error).toBeUndefined();
    // A request from before its approvers were recorded.
    await sql`update deletion_requests set approvers = null where id = ${older.requestId}`.execute(db);
    expect((await migrator.migrateToLatest()).error).toBeUndefined();
    await db.destroy();

    const store = openStore(database.location);
    const sees = async (userId: string, groups: string[], approverInForce: boolean) =>
      (
        await store.history.page({
          teamId: 'T1',
          viewer: { everything: false, userId, audiences: viewerAudiences({ userId, groups, approverInForce }) },
          limit: 10,
        })
      ).items.map((item) => item.id);
    expect(await sees('U_APP', [], false)).toEqual([named.row]);
    expect(await sees('U_MEM', ['S_OPS'], false)).toEqual([named.row]);
    expect(await sees('U_NOW', [], true)).toEqual([older.row]);
    expect(await sees('U_NONE', [], false)).toEqual([]);
    expect(await store.history.askedGroups('T1')).toEqual(['S_OPS']);
    expect(await store.historyPeople.peopleToName(10)).toEqual([{ teamId: 'T1', userId: 'U_REQ' }]);
    await store.close();
    await database.drop();
  });
});
