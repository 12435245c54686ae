import { afterEach, beforeEach, expect, it } from 'vitest';
import { openStore, type Store } from '../../src/store/store.js';
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

  const request = async (status: string, createdAt: Date) => {
    const r = await store.deletionRequests.create(
      {
        teamId: 'T1',
        requesterId: 'U1',
        customerIds: ['c1'],
        duplicatesRemoved: 0,
        reason: 'r',
        expiresAt: new Date(createdAt.getTime() + 3_600_000),
        approvalsNeeded: 1,
      },
      createdAt,
    );
    await store.stepCompletions.add(
      { requestId: r.id, functionExecutionId: `Fx${r.id}`, sealedToken: 'v1.sealed' },
      createdAt,
    );
    if (status === 'cancelled') await store.deletionRequests.cancel(r.id, 'U1', createdAt);
    return r.id;
  };

  it('gives a step to one claimer, and to another only once the first claim is older than the lease', async () => {
    const id = await request('cancelled', new Date());
    const now = new Date();
    expect(await store.stepCompletions.claim(id, LEASE, now)).toMatchObject({
      requestId: id,
      functionExecutionId: `Fx${id}`,
      sealedToken: 'v1.sealed',
      attempts: 0,
    });
    expect(await store.stepCompletions.claim(id, LEASE, new Date(now.getTime() + LEASE - 1))).toBeUndefined();
    expect(await store.stepCompletions.claim(id, LEASE, new Date(now.getTime() + LEASE + 1))).toBeDefined();
  });

  it('lists ended requests only, oldest first, and a released one only once its next try is due', async () => {
    const start = Date.now() - 10_000;
    const pendingId = await request('pending', new Date(start));
    const older = await request('cancelled', new Date(start + 1_000));
    const newer = await request('cancelled', new Date(start + 2_000));
    expect(await store.stepCompletions.dueRequestIds(LEASE)).toEqual([older, newer]);
    expect(pendingId).toBeDefined();

    await store.stepCompletions.claim(older, LEASE);
    const nextTry = new Date(Date.now() + 30_000);
    await store.stepCompletions.release(older, nextTry);
    expect(await store.stepCompletions.dueRequestIds(LEASE)).toEqual([newer]);
    expect(await store.stepCompletions.dueRequestIds(LEASE, new Date(nextTry.getTime() + 1))).toEqual([older, newer]);
    expect((await store.stepCompletions.claim(older, LEASE, new Date(nextTry.getTime() + 1)))?.attempts).toBe(1);
  });

  it('completes a step once, erasing its token', async () => {
    const id = await request('cancelled', new Date());
    await store.stepCompletions.claim(id, LEASE);
    await store.stepCompletions.finish(id, 'failed');
    expect(await store.stepCompletions.sealedTokenOf(id)).toBe('');
    expect(await store.stepCompletions.claim(id, LEASE, new Date(Date.now() + 10 * LEASE))).toBeUndefined();
    expect(await store.stepCompletions.dueRequestIds(LEASE)).toEqual([]);
  });

  it('never binds one workflow execution to two requests', async () => {
    const id = await request('pending', new Date());
    const other = await request('pending', new Date());
    await expect(
      store.stepCompletions.add({
        requestId: other.replace(/.$/, 'Z'),
        functionExecutionId: `Fx${id}`,
        sealedToken: 'x',
      }),
    ).rejects.toThrow();
  });
});
