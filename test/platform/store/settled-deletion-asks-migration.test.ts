import { sql } from 'kysely';
import { expect, it } from 'vitest';
import { DELETION_ASKED_OPERATION } from '../../../src/platform/store/deletion-requests.js';
import { openDatabase } from '../../../src/platform/store/open-database.js';
import { openStore } from '../../../src/platform/store/store.js';
import { appMigrator, describeEachEngine } from '../../kit/store-engines.js';

describeEachEngine('migration 014 (settled deletion asks)', (engine, create) => {
  it('gives the asking entries left pending the status of their ended requests', async () => {
    const database = await create();
    const store = openStore(database.location);
    await store.migrate();
    const ask = async (requesterId: string) => {
      const request = await store.deletionRequests.create({
        teamId: 'T1',
        requesterId,
        customerIds: ['c-1'],
        duplicatesRemoved: 0,
        reason: 'r',
        ttlMs: 3_600_000,
        approvalsNeeded: 1,
        approvers: { users: ['U9'], userGroups: [] },
      });
      await store.audit.record({
        actorId: requesterId,
        teamId: 'T1',
        operation: DELETION_ASKED_OPERATION,
        inputs: { requestId: request.id },
        outcome: 'pending',
        detail: request.id,
      });
      return request.id;
    };
    const [rejected, done, waiting] = [await ask('U1'), await ask('U2'), await ask('U3')];
    await store.close();

    const db = openDatabase(database.location);
    // As the code before settled nothing: the requests ended, their asking entries stayed pending.
    await sql`update deletion_requests set status = 'rejected' where id = ${rejected}`.execute(db);
    await sql`update deletion_requests set status = 'done' where id = ${done}`.execute(db);
    const migrator = await appMigrator(db, engine);
    expect((await migrator.migrateTo('013-home-tabs-by-workspace')).error).toBeUndefined();
    expect((await migrator.migrateToLatest()).error).toBeUndefined();
    const outcomes = await sql<{ detail: string; outcome: string }>`select detail, outcome from audit_log`.execute(db);
    expect(Object.fromEntries(outcomes.rows.map((row) => [row.detail, row.outcome]))).toEqual({
      [rejected]: 'rejected',
      [done]: 'done',
      [waiting]: 'pending',
    });
    await db.destroy();
    await database.drop();
  });
});
