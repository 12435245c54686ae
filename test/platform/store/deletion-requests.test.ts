import { beforeEach, expect, it } from 'vitest';
import type { Store } from '../../../src/platform/store/store.js';
import { runSql } from '../../kit/raw-sql.js';
import { describeEachEngine, type TestDatabase, useMigratedStore } from '../../kit/store-engines.js';

const HOUR = 3_600_000;

describeEachEngine('deletion requests', (_engine, create) => {
  const migrated = useMigratedStore(create);
  let db: TestDatabase;
  let store: Store;
  beforeEach(() => ({ db, store } = migrated));

  const request = (overrides: Partial<Parameters<Store['deletionRequests']['create']>[0]> = {}) =>
    store.deletionRequests.create({
      teamId: 'T1',
      requesterId: 'U_REQ',
      customerIds: ['c1', 'c2'],
      duplicatesRemoved: 1,
      reason: 'GDPR',
      ttlMs: 72 * HOUR,
      approvalsNeeded: 1,
      approvers: { users: ['U_A'], userGroups: ['S_G'] },
      ...overrides,
    });
  /** Moves a stored time of a request `ms` into the past, as if the database had written it then. */
  const backdate = (id: string, column: 'created_at' | 'decided_at' | 'run_started_at', ms: number) =>
    runSql(db.databaseUrl, `update deletion_requests set ${column} = ? where id = ?`, [
      new Date(Date.now() - ms).toISOString(),
      id,
    ]);

  it('stores a pending request with a short readable id', async () => {
    const created = await request();
    expect(created).toMatchObject({
      id: expect.stringMatching(/^DR-[2-9A-HJKMNP-Z]{6}$/),
      status: 'pending',
      customerIds: ['c1', 'c2'],
      duplicatesRemoved: 1,
      attempts: 0,
    });
    expect(await store.deletionRequests.get(created.id)).toEqual(created);
  });

  it('lets exactly one of many concurrent deciders win, and says who', async () => {
    const { id } = await request();
    const deciders = Array.from({ length: 20 }, (_, i) =>
      store.deletionRequests.forTeam('T1').decide(id, i % 2 ? 'approved' : 'rejected', `U_${i}`, undefined),
    );
    const results = await Promise.all(deciders);
    const winners = results.filter((r) => r.won);
    expect(winners).toHaveLength(1);
    const winner = winners[0]!.request;
    for (const loser of results.filter((r) => !r.won))
      expect(loser.request).toMatchObject({ status: winner.status, decidedBy: winner.decidedBy });
  });

  it('lets exactly one of many concurrent runners claim the run', async () => {
    const { id } = await request();
    await store.deletionRequests.forTeam('T1').decide(id, 'approved', 'U_A', undefined);
    const claims = await Promise.all(
      Array.from({ length: 10 }, () => store.deletionRequests.forTeam('T1').claimRun(id, ['approved'], 'U_A')),
    );
    expect(claims.filter((c) => c.won)).toHaveLength(1);
    expect((await store.deletionRequests.get(id))?.attempts).toBe(1);
  });

  it('follows the run to done, or to failed and a retry', async () => {
    const { id } = await request();
    await store.deletionRequests.forTeam('T1').decide(id, 'approved', 'U_A', undefined);
    await store.deletionRequests.forTeam('T1').claimRun(id, ['approved'], 'U_A');
    expect((await store.deletionRequests.forTeam('T1').finishRun(id, 'failed', 'HTTP 503')).request).toMatchObject({
      status: 'failed',
      outcomeDetail: 'HTTP 503',
    });
    expect((await store.deletionRequests.forTeam('T1').claimRun(id, ['approved'], 'U_A')).won).toBe(false); // not approved any more
    expect(
      (await store.deletionRequests.forTeam('T1').claimRun(id, ['failed', 'attention'], 'U_B')).request,
    ).toMatchObject({
      status: 'running',
      runBy: 'U_B',
      attempts: 2,
    });
    expect((await store.deletionRequests.forTeam('T1').finishRun(id, 'done', 'deleted 2')).request).toMatchObject({
      status: 'done',
      attempts: 2,
    });
    expect((await store.deletionRequests.forTeam('T1').finishRun(id, 'failed', 'late')).won).toBe(false);
  });

  it('cannot decide an expired, cancelled or decided request', async () => {
    const expired = await request({ ttlMs: -1 });
    expect(await store.deletionRequests.forTeam('T1').hasExpired(expired.id)).toBe(true);
    expect((await store.deletionRequests.forTeam('T1').decide(expired.id, 'approved', 'U_A', undefined)).won).toBe(
      false,
    );

    const cancelled = await request();
    expect((await store.deletionRequests.forTeam('T1').cancel(cancelled.id, 'U_OTHER')).won).toBe(false); // only the requester
    expect((await store.deletionRequests.forTeam('T1').cancel(cancelled.id, 'U_REQ')).request).toMatchObject({
      status: 'cancelled',
      decidedBy: 'U_REQ',
    });
    expect((await store.deletionRequests.forTeam('T1').decide(cancelled.id, 'approved', 'U_A', undefined)).won).toBe(
      false,
    );

    const rejected = await request();
    await store.deletionRequests.forTeam('T1').decide(rejected.id, 'rejected', 'U_B', 'not verified');
    const again = await store.deletionRequests.forTeam('T1').decide(rejected.id, 'approved', 'U_A', undefined);
    expect(again).toMatchObject({
      won: false,
      request: { status: 'rejected', decidedBy: 'U_B', decisionNote: 'not verified' },
    });
    expect((await store.deletionRequests.forTeam('T1').cancel(rejected.id, 'U_REQ')).won).toBe(false);
  });

  it('expires overdue pending requests once', async () => {
    const overdue = await request({ ttlMs: -HOUR });
    const fresh = await request();
    expect(await store.deletionRequests.forTeam('T1').hasExpired(fresh.id)).toBe(false);
    expect(await store.deletionRequests.overdue()).toEqual([{ teamId: 'T1', id: overdue.id }]);
    expect((await store.deletionRequests.forTeam('T1').expire(overdue.id)).request).toMatchObject({
      status: 'expired',
    });
    expect((await store.deletionRequests.forTeam('T1').expire(overdue.id)).won).toBe(false);
    expect((await store.deletionRequests.forTeam('T1').expire(fresh.id)).won).toBe(false);
    expect(await store.deletionRequests.overdue()).toEqual([]);
  });

  it('marks runs that cannot still be going as needing attention, leaving live ones alone', async () => {
    const dead = await request();
    await store.deletionRequests.forTeam('T1').decide(dead.id, 'approved', 'U_A', undefined);
    await store.deletionRequests.forTeam('T1').claimRun(dead.id, ['approved'], 'U_A');
    await backdate(dead.id, 'run_started_at', 60_000);
    const stuckApproved = await request();
    await store.deletionRequests.forTeam('T1').decide(stuckApproved.id, 'approved', 'U_A', undefined);
    await backdate(stuckApproved.id, 'decided_at', 60_000);
    const live = await request();
    await store.deletionRequests.forTeam('T1').decide(live.id, 'approved', 'U_A', undefined);
    await store.deletionRequests.forTeam('T1').claimRun(live.id, ['approved'], 'U_A');

    const leaseMs = 10_000;
    const stale = (await store.deletionRequests.staleRuns(leaseMs)).map((r) => r.id);
    expect(stale.sort()).toEqual([dead.id, stuckApproved.id].sort());
    for (const id of stale)
      expect((await store.deletionRequests.forTeam('T1').interrupt(id, leaseMs)).request).toMatchObject({
        status: 'attention',
      });
    expect((await store.deletionRequests.forTeam('T1').interrupt(live.id, leaseMs)).won).toBe(false);
    expect((await store.deletionRequests.get(live.id))?.status).toBe('running');
    expect(await store.deletionRequests.staleRuns(leaseMs)).toEqual([]);
  });

  it("writes and judges every time by the database's clock, whatever the process's clock says", async () => {
    // This process's clock an hour ahead: a run it starts now is not stale, nor is a request it makes expired.
    const realNow = Date.now;
    Date.now = () => realNow() + HOUR;
    try {
      const r = await request({ ttlMs: 10 * 60_000 });
      expect(Math.abs(r.createdAt.getTime() - realNow())).toBeLessThan(5_000);
      expect(Math.abs(r.expiresAt.getTime() - (realNow() + 10 * 60_000))).toBeLessThan(5_000);
      await store.deletionRequests.forTeam('T1').decide(r.id, 'approved', 'U_A', undefined);
      const run = await store.deletionRequests.forTeam('T1').claimRun(r.id, ['approved'], 'U_A');
      expect(Math.abs((run.request?.runStartedAt?.getTime() ?? 0) - realNow())).toBeLessThan(5_000);
      expect(await store.deletionRequests.staleRuns(60_000)).toEqual([]);
      expect(await store.deletionRequests.overdue()).toEqual([]);
      expect(await store.deletionRequests.forTeam('T1').hasExpired(r.id)).toBe(false);
    } finally {
      Date.now = realNow;
    }
  });

  it('writes a transition and its audit entry together, or neither', async () => {
    const { id } = await request();
    await expect(
      store.transaction(async (tx) => {
        await tx.deletionRequests.forTeam('T1').decide(id, 'approved', 'U_A', undefined);
        await tx.audit.record({
          actorId: 'U_A',
          operation: 'customers.delete.approve',
          inputs: { requestId: id },
          outcome: 'approved',
        });
        throw new Error('the process fails before the commit');
      }),
    ).rejects.toThrow('before the commit');
    expect((await store.deletionRequests.get(id))?.status).toBe('pending');
    expect(await store.audit.list()).toEqual([]);
    await store.transaction(async (tx) => {
      await tx.deletionRequests.forTeam('T1').decide(id, 'approved', 'U_A', undefined);
      await tx.audit.record({
        actorId: 'U_A',
        operation: 'customers.delete.approve',
        inputs: { requestId: id },
        outcome: 'approved',
      });
    });
    expect((await store.deletionRequests.get(id))?.status).toBe('approved');
    expect(await store.audit.list()).toHaveLength(1);
  });

  it('lists and counts by status and requester, newest first', async () => {
    const a = await request({ requesterId: 'U_1' });
    await backdate(a.id, 'created_at', 2000);
    const b = await request({ requesterId: 'U_2' });
    await backdate(b.id, 'created_at', 1000);
    await store.deletionRequests.forTeam('T1').cancel(b.id, 'U_2');
    const c = await request({ requesterId: 'U_1' });
    expect((await store.deletionRequests.list({ statuses: ['pending'] })).map((r) => r.id)).toEqual([c.id, a.id]);
    expect(await store.deletionRequests.count({ statuses: ['pending'] })).toBe(2);
    expect(await store.deletionRequests.count({ requesterId: 'U_2' })).toBe(1);
  });

  it("keeps each workspace's requests to itself: another's id is not found, changed or listed", async () => {
    const mine = await request();
    const theirs = await request({ teamId: 'T2', requesterId: 'U_THEIRS' });
    const theirsOverdue = await request({ teamId: 'T2', ttlMs: -HOUR });
    const theirsStale = await request({ teamId: 'T2' });
    const theirsApproved = await request({ teamId: 'T2' });
    const t1 = store.deletionRequests.forTeam('T1');
    const t2 = store.deletionRequests.forTeam('T2');
    await t2.decide(theirsApproved.id, 'approved', 'U_A', undefined);
    await t2.decide(theirsStale.id, 'approved', 'U_A', undefined);
    await t2.claimRun(theirsStale.id, ['approved'], 'U_A');
    await backdate(theirsStale.id, 'run_started_at', 60_000);
    const before = await store.deletionRequests.list({ limit: 10 });

    expect(await t1.get(theirs.id)).toBeUndefined();
    expect(await t1.hasExpired(theirsOverdue.id)).toBe(false);
    const attempts = [
      await t1.decide(theirs.id, 'approved', 'U_A', undefined),
      await t1.decide(theirs.id, 'rejected', 'U_A', 'no'),
      await t1.cancel(theirs.id, 'U_THEIRS'),
      await t1.expire(theirsOverdue.id),
      await t1.claimRun(theirsApproved.id, ['approved'], 'U_A'),
      await t1.interrupt(theirsStale.id, 10_000),
      await t1.finishRun(theirsStale.id, 'done', 'forged'),
    ];
    for (const attempt of attempts) expect(attempt).toEqual({ won: false, request: undefined });
    await t1.setApprovalMessage(theirs.id, 'C_FORGED', '1.1');
    await t1.setRequesterMessage(theirs.id, 'D_FORGED', '1.2');
    expect(await t1.cancelAllPending('system', 'gone')).toEqual([
      expect.objectContaining({ id: mine.id, status: 'cancelled' }),
    ]);
    // Nothing of the other workspace changed.
    const after = await store.deletionRequests.list({ limit: 10 });
    const theirsOf = (all: typeof before) => all.filter((r) => r.teamId === 'T2');
    expect(theirsOf(after)).toEqual(theirsOf(before));

    expect((await t1.list()).map((r) => r.id)).toEqual([mine.id]);
    expect(await t1.count({ statuses: ['pending'] })).toBe(0);
    expect((await t2.list({ statuses: ['pending'] })).map((r) => r.id).sort()).toEqual(
      [theirs.id, theirsOverdue.id].sort(),
    );
    expect(await t2.count()).toBe(4);
    expect(await t2.get(theirs.id)).toMatchObject({ teamId: 'T2', approvalChannelId: undefined });
  });

  it('finds what background work is due in every workspace, each named with its workspace', async () => {
    const a = await request({ ttlMs: -HOUR });
    const b = await request({ teamId: 'T2', ttlMs: -HOUR });
    await request({ teamId: 'T3' });
    const stale = await request({ teamId: 'T2' });
    await store.deletionRequests.forTeam('T2').decide(stale.id, 'approved', 'U_A', undefined);
    await backdate(stale.id, 'decided_at', 60_000);

    const byId = <T extends { id: string }>(refs: T[]) => [...refs].sort((x, y) => x.id.localeCompare(y.id));
    expect(byId(await store.deletionRequests.overdue())).toEqual(
      byId([
        { teamId: 'T1', id: a.id },
        { teamId: 'T2', id: b.id },
      ]),
    );
    expect(await store.deletionRequests.staleRuns(10_000)).toEqual([{ teamId: 'T2', id: stale.id }]);
    expect(await store.deletionRequests.teamsWithPending()).toEqual(['T1', 'T2', 'T3']);
    await store.deletionRequests.forTeam('T1').cancelAllPending('system', 'gone');
    expect(await store.deletionRequests.teamsWithPending()).toEqual(['T2', 'T3']);
  });
});
