import { expect, it } from 'vitest';
import { runSql } from '../../kit/raw-sql.js';
import { describeEachEngine, useMigratedStore } from '../../kit/store-engines.js';

describeEachEngine('workflow steps waiting for deletion requests', (_engine, create) => {
  const used = useMigratedStore(create);
  const LEASE = 60_000;

  /** A request with a step waiting for it; `agoMs`: the step was added that long ago (by the database's clock). */
  const request = async (status: string, agoMs = 0, teamId = 'T1') => {
    const r = await used.store.deletionRequests.create({
      teamId,
      requesterId: 'U1',
      customerIds: ['c1'],
      duplicatesRemoved: 0,
      reason: 'r',
      ttlMs: 3_600_000,
      approvalsNeeded: 1,
      approvers: { users: [], userGroups: [] },
    });
    await used.store.stepCompletions.add(teamId, {
      requestId: r.id,
      functionExecutionId: `Fx${r.id}`,
      sealedToken: 'v1.sealed',
    });
    if (agoMs) await backdate(r.id, 'created_at', agoMs);
    if (status === 'cancelled') await used.store.deletionRequests.forTeam(teamId).cancel(r.id, 'U1');
    return r.id;
  };
  const dueIds = async () => (await used.store.stepCompletions.due(LEASE)).map((ref) => ref.id);
  /** Moves a stored time of a request's step `ms` into the past, as if the database had written it then. */
  const backdate = (id: string, column: 'created_at' | 'claimed_at' | 'next_try_at', ms: number) =>
    runSql(used.db.databaseUrl, `update step_completions set ${column} = ? where request_id = ?`, [
      new Date(Date.now() - ms).toISOString(),
      id,
    ]);

  it('gives a step to one claimer, and to another only once the first claim is older than the lease', async () => {
    const id = await request('cancelled');
    expect(await used.store.stepCompletions.claim('T1', id, LEASE)).toMatchObject({
      requestId: id,
      functionExecutionId: `Fx${id}`,
      sealedToken: 'v1.sealed',
      attempts: 0,
    });
    await backdate(id, 'claimed_at', LEASE - 5_000);
    expect(await used.store.stepCompletions.claim('T1', id, LEASE)).toBeUndefined();
    await backdate(id, 'claimed_at', LEASE + 1);
    expect(await used.store.stepCompletions.claim('T1', id, LEASE)).toBeDefined();
  });

  it('lists ended requests only, oldest first, and a released one only once its next try is due', async () => {
    const pendingId = await request('pending', 10_000);
    const older = await request('cancelled', 9_000);
    const newer = await request('cancelled', 8_000);
    expect(await dueIds()).toEqual([older, newer]);
    expect(pendingId).toBeDefined();

    await used.store.stepCompletions.claim('T1', older, LEASE);
    await used.store.stepCompletions.release('T1', older, 30_000);
    expect(await dueIds()).toEqual([newer]);
    await backdate(older, 'next_try_at', 1); // 30 s later
    expect(await dueIds()).toEqual([older, newer]);
    expect((await used.store.stepCompletions.claim('T1', older, LEASE))?.attempts).toBe(1);
  });

  it('completes a step once, erasing its token', async () => {
    const id = await request('cancelled');
    await used.store.stepCompletions.claim('T1', id, LEASE);
    await used.store.stepCompletions.finish('T1', id, 'failed');
    expect(await used.store.stepCompletions.sealedTokenOf('T1', id)).toBe('');
    await backdate(id, 'claimed_at', 10 * LEASE);
    expect(await used.store.stepCompletions.claim('T1', id, LEASE)).toBeUndefined();
    expect(await dueIds()).toEqual([]);
  });

  it('never binds one workflow execution to two requests', async () => {
    const id = await request('pending');
    const other = await used.store.deletionRequests.create({
      teamId: 'T1',
      requesterId: 'U1',
      customerIds: ['c2'],
      duplicatesRemoved: 0,
      reason: 'r',
      ttlMs: 3_600_000,
      approvalsNeeded: 1,
      approvers: { users: [], userGroups: [] },
    });
    await expect(
      used.store.stepCompletions.add('T1', { requestId: other.id, functionExecutionId: `Fx${id}`, sealedToken: 'x' }),
    ).rejects.toThrow();
  });

  it("keeps each workspace's steps to itself, and names each due step with its workspace", async () => {
    const mine = await request('cancelled', 9_000);
    const theirs = await request('cancelled', 8_000, 'T2');
    expect(await used.store.stepCompletions.due(LEASE)).toEqual([
      { teamId: 'T1', id: mine },
      { teamId: 'T2', id: theirs },
    ]);
    // Another workspace's request id, named in T1, reaches nothing.
    await expect(
      used.store.stepCompletions.add('T1', { requestId: theirs, functionExecutionId: 'Fx-forged', sealedToken: 'x' }),
    ).rejects.toThrow('no deletion request');
    expect(await used.store.stepCompletions.claim('T1', theirs, LEASE)).toBeUndefined();
    expect(await used.store.stepCompletions.sealedTokenOf('T1', theirs)).toBeUndefined();
    expect(await used.store.stepCompletions.claim('T2', theirs, LEASE)).toMatchObject({ requestId: theirs });
    await used.store.stepCompletions.finish('T1', theirs, 'completed');
    await used.store.stepCompletions.release('T1', theirs, 0);
    expect(await used.store.stepCompletions.sealedTokenOf('T2', theirs)).toBe('v1.sealed');
    expect(await used.store.stepCompletions.claim('T2', theirs, LEASE)).toBeUndefined(); // still T2's claim
    expect(await used.store.stepCompletions.endAllOf('T1')).toBe(1);
    expect(await used.store.stepCompletions.resultOf('T2', theirs)).toBeUndefined();
  });

  it("ends every step of a workspace that removed the app for good, and none of another's", async () => {
    const waiting = await request('pending');
    const ended = await request('cancelled');
    const claimed = await request('cancelled');
    await used.store.stepCompletions.claim('T1', claimed, LEASE);
    const theirs = await request('cancelled', 0, 'T2');
    expect(await used.store.stepCompletions.endAllOf('T1')).toBe(3);
    for (const id of [waiting, ended, claimed]) {
      expect(await used.store.stepCompletions.resultOf('T1', id)).toBe('uninstalled');
      expect(await used.store.stepCompletions.sealedTokenOf('T1', id)).toBe('');
      expect(await used.store.stepCompletions.claim('T1', id, 0)).toBeUndefined();
    }
    expect(await used.store.stepCompletions.due(LEASE)).toEqual([{ teamId: 'T2', id: theirs }]);
    expect(await used.store.stepCompletions.endAllOf('T1')).toBe(0);
  });

  it('puts off a step of a workspace that cannot be reached, without counting a failure', async () => {
    const older = await request('cancelled', 9_000);
    const newer = await request('cancelled', 8_000, 'T2');
    await used.store.stepCompletions.postpone('T1', older, 3_600_000);
    expect(await dueIds()).toEqual([newer]);
    await backdate(older, 'next_try_at', 1);
    expect(await dueIds()).toEqual([older, newer]);
    expect((await used.store.stepCompletions.claim('T1', older, LEASE))?.attempts).toBe(0);
  });
});
