import { afterEach, beforeEach, expect, it } from 'vitest';
import { openStore, type Store } from '../../src/store/store.js';
import { runSql } from '../kit/raw-sql.js';
import { describeEachEngine, type TestDatabase } from '../kit/store-engines.js';

describeEachEngine('workflow steps waiting for deletion requests', (_engine, create) => {
  let db: TestDatabase;
  let store: Store;
  const LEASE = 60_000;

  beforeEach(async () => {
    db = await create();
    store = openStore(db.location);
    await store.migrate();
  });
  afterEach(async () => {
    await store.close();
    await db.drop();
  });

  /** A request with a step waiting for it; `agoMs`: the step was added that long ago (by the database's clock). */
  const request = async (status: string, agoMs = 0) => {
    const r = await store.deletionRequests.create({
      teamId: 'T1',
      requesterId: 'U1',
      customerIds: ['c1'],
      duplicatesRemoved: 0,
      reason: 'r',
      ttlMs: 3_600_000,
      approvalsNeeded: 1,
      approvers: { users: [], userGroups: [] },
    });
    await store.stepCompletions.add({ requestId: r.id, functionExecutionId: `Fx${r.id}`, sealedToken: 'v1.sealed' });
    if (agoMs) await backdate(r.id, 'created_at', agoMs);
    if (status === 'cancelled') await store.deletionRequests.cancel(r.id, 'U1');
    return r.id;
  };
  /** Moves a stored time of a request's step `ms` into the past, as if the database had written it then. */
  const backdate = (id: string, column: 'created_at' | 'claimed_at' | 'next_try_at', ms: number) =>
    runSql(db.databaseUrl, `update step_completions set ${column} = ? where request_id = ?`, [
      new Date(Date.now() - ms).toISOString(),
      id,
    ]);

  it('gives a step to one claimer, and to another only once the first claim is older than the lease', async () => {
    const id = await request('cancelled');
    expect(await store.stepCompletions.claim(id, LEASE)).toMatchObject({
      requestId: id,
      functionExecutionId: `Fx${id}`,
      sealedToken: 'v1.sealed',
      attempts: 0,
    });
    await backdate(id, 'claimed_at', LEASE - 5_000);
    expect(await store.stepCompletions.claim(id, LEASE)).toBeUndefined();
    await backdate(id, 'claimed_at', LEASE + 1);
    expect(await store.stepCompletions.claim(id, LEASE)).toBeDefined();
  });

  it('lists ended requests only, oldest first, and a released one only once its next try is due', async () => {
    const pendingId = await request('pending', 10_000);
    const older = await request('cancelled', 9_000);
    const newer = await request('cancelled', 8_000);
    expect(await store.stepCompletions.dueRequestIds(LEASE)).toEqual([older, newer]);
    expect(pendingId).toBeDefined();

    await store.stepCompletions.claim(older, LEASE);
    await store.stepCompletions.release(older, 30_000);
    expect(await store.stepCompletions.dueRequestIds(LEASE)).toEqual([newer]);
    await backdate(older, 'next_try_at', 1); // 30 s later
    expect(await store.stepCompletions.dueRequestIds(LEASE)).toEqual([older, newer]);
    expect((await store.stepCompletions.claim(older, LEASE))?.attempts).toBe(1);
  });

  it('completes a step once, erasing its token', async () => {
    const id = await request('cancelled');
    await store.stepCompletions.claim(id, LEASE);
    await store.stepCompletions.finish(id, 'failed');
    expect(await store.stepCompletions.sealedTokenOf(id)).toBe('');
    await backdate(id, 'claimed_at', 10 * LEASE);
    expect(await store.stepCompletions.claim(id, LEASE)).toBeUndefined();
    expect(await store.stepCompletions.dueRequestIds(LEASE)).toEqual([]);
  });

  it('never binds one workflow execution to two requests', async () => {
    const id = await request('pending');
    const other = await request('pending');
    await expect(
      store.stepCompletions.add({
        requestId: other.replace(/.$/, 'Z'),
        functionExecutionId: `Fx${id}`,
        sealedToken: 'x',
      }),
    ).rejects.toThrow();
  });
});
