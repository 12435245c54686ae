import { beforeEach, expect, it } from 'vitest';
import type { Store } from '../../../src/platform/store/store.js';
import { runSql } from '../../kit/raw-sql.js';
import { describeEachEngine, type TestDatabase, useMigratedStore } from '../../kit/store-engines.js';

const HOUR = 3_600_000;

describeEachEngine('deletion approvals and reminders', (engine, create) => {
  const migrated = useMigratedStore(create);
  let db: TestDatabase;
  let store: Store;
  beforeEach(() => ({ db, store } = migrated));

  /** A request made `agoMs` ago (by the database's clock), waiting 72 hours from then. */
  const request = async (approvalsNeeded: number, agoMs = 0, teamId = 'T1') => {
    const created = await store.deletionRequests.create({
      teamId,
      requesterId: 'U_REQ',
      customerIds: ['c1', 'c2'],
      duplicatesRemoved: 0,
      reason: 'GDPR',
      ttlMs: 72 * HOUR - agoMs,
      approvalsNeeded,
      approvers: { users: [], userGroups: [] },
    });
    if (agoMs > 0)
      await runSql(db.databaseUrl, 'update deletion_requests set created_at = ? where id = ?', [
        new Date(Date.now() - agoMs).toISOString(),
        created.id,
      ]);
    return created;
  };
  const approve = (id: string, user: string, on: Store = store, teamId = 'T1') =>
    on.transaction((tx) => tx.deletionApprovals.approve(teamId, id, user));

  it('counts distinct approvers and approves with the last one needed', async () => {
    const { id } = await request(2);
    const first = await approve(id, 'U_A');
    expect(first.outcome).toBe('recorded');
    expect(first.request).toMatchObject({ status: 'pending', approverIds: ['U_A'], approvalsNeeded: 2 });
    expect((await approve(id, 'U_A')).outcome).toBe('already');
    const second = await approve(id, 'U_B');
    expect(second.outcome).toBe('approved');
    expect(second.request).toMatchObject({ status: 'approved', approverIds: ['U_A', 'U_B'], decidedBy: 'U_B' });
    expect((await approve(id, 'U_C')).outcome).toBe('closed');
    expect((await store.deletionApprovals.of([id])).map((a) => a.approverId)).toEqual(['U_A', 'U_B']);
  });

  it('approves at once with a quorum of one, and never after expiry or another decision', async () => {
    const one = await request(1);
    expect(await approve(one.id, 'U_A')).toMatchObject({ outcome: 'approved', request: { status: 'approved' } });
    const expired = await request(1, 80 * HOUR);
    expect(await approve(expired.id, 'U_A')).toMatchObject({ outcome: 'closed', request: { status: 'pending' } });
    const rejected = await request(2);
    await approve(rejected.id, 'U_A');
    expect((await store.deletionRequests.forTeam('T1').decide(rejected.id, 'rejected', 'U_B', 'no')).won).toBe(true);
    expect(await approve(rejected.id, 'U_C')).toMatchObject({ outcome: 'closed', request: { status: 'rejected' } });
    expect((await approve('DR-NONE00', 'U_A')).request).toBeUndefined();
  });

  it('counts every one of many concurrent approvals, from several connections, and approves exactly once', async () => {
    // PostgreSQL: four pools at once. SQLite: one (better-sqlite3 waits for a lock synchronously, so a second
    // connection in the same process would block the first; several processes are tested end to end).
    const pool = [store, ...Array.from({ length: engine === 'postgres' ? 3 : 0 }, () => migrated.open())];
    for (const round of [5, 8]) {
      const { id } = await request(round);
      const results = await Promise.all(
        Array.from({ length: round + 2 }, (_, i) => approve(id, `U_${i}`, pool[i % pool.length])),
      );
      expect(results.filter((r) => r.outcome === 'approved')).toHaveLength(1);
      expect(results.filter((r) => r.outcome === 'recorded')).toHaveLength(round - 1);
      expect(results.filter((r) => r.outcome === 'closed')).toHaveLength(2);
      const final = await store.deletionRequests.get(id);
      expect(final?.status).toBe('approved');
      expect(final?.approverIds).toHaveLength(round);
      expect(new Set(final?.approverIds).size).toBe(round);
      expect((await store.deletionApprovals.of([id])).map((a) => a.approverId).sort()).toEqual(
        [...(final?.approverIds ?? [])].sort(),
      );
    }
  });

  it("leaves out of an approver's list the requests they approved already", async () => {
    const { id } = await request(2);
    await approve(id, 'U_A');
    const filter = { statuses: ['pending' as const], notApprovedBy: 'U_A' };
    expect(await store.deletionRequests.count(filter)).toBe(0);
    expect(await store.deletionRequests.list(filter)).toEqual([]);
    expect(await store.deletionRequests.count({ ...filter, notApprovedBy: 'U_B' })).toBe(1);
  });

  it('finds reminders due once, lets one caller claim each, and takes a claim back', async () => {
    const old = await request(2, 30 * HOUR);
    const fresh = await request(2);
    const expiring = await request(2, 70 * HOUR);
    const after24h = { pendingForMs: 24 * HOUR };
    expect((await store.deletionReminders.due('T1', 'reminder', after24h)).sort()).toEqual(
      [old.id, expiring.id].sort(),
    );
    const within4h = { expiringWithinMs: 4 * HOUR };
    expect(await store.deletionReminders.due('T1', 'expiry-warning', within4h)).toEqual([expiring.id]);
    // Judged ahead of the clock (TEST_CLOCK_OFFSET_HOURS): 69 hours on, only the fresh one is close to expiry...
    expect(await store.deletionReminders.due('T1', 'expiry-warning', within4h, 69 * HOUR)).toEqual([fresh.id]);
    // ...and 25 hours on, it is due a reminder (and the one made 70 hours ago has expired).
    expect((await store.deletionReminders.due('T1', 'reminder', after24h, 25 * HOUR)).sort()).toEqual(
      [old.id, fresh.id].sort(),
    );

    const other = migrated.open();
    const claimers = engine === 'postgres' ? [store, other] : [store];
    const claims = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        claimers[i % claimers.length]!.deletionReminders.claim('T1', old.id, 'reminder'),
      ),
    );
    expect(claims.filter(Boolean)).toHaveLength(1);
    expect(await store.deletionReminders.due('T1', 'reminder', after24h)).toEqual([expiring.id]);
    expect(Object.keys(await store.deletionReminders.sent('T1', old.id))).toEqual(['reminder']);

    await store.deletionReminders.release('T1', old.id, 'reminder');
    expect(await store.deletionReminders.claim('T1', old.id, 'reminder')).toBe(true);
    await store.deletionRequests.forTeam('T1').cancel(expiring.id, 'U_REQ');
    expect(await store.deletionReminders.due('T1', 'reminder', after24h)).toEqual([]);
    expect(await store.deletionReminders.due('T1', 'expiry-warning', within4h)).toEqual([]);
    expect(fresh.status).toBe('pending');
  });

  it("approves, lists and reminds within the request's own workspace only", async () => {
    const theirs = await request(1, 30 * HOUR, 'T2');
    const mine = await request(1, 30 * HOUR);
    expect(await approve(theirs.id, 'U_A')).toEqual({ outcome: 'closed', request: undefined });
    expect(await store.deletionApprovals.of([theirs.id, mine.id], 'T1')).toEqual([]);
    expect((await store.deletionRequests.get(theirs.id))?.approverIds).toEqual([]);

    const after24h = { pendingForMs: 24 * HOUR };
    expect(await store.deletionReminders.due('T1', 'reminder', after24h)).toEqual([mine.id]);
    expect(await store.deletionReminders.due('T2', 'reminder', after24h)).toEqual([theirs.id]);
    expect(await store.deletionReminders.claim('T1', theirs.id, 'reminder')).toBe(false);
    expect(await store.deletionReminders.due('T2', 'reminder', after24h)).toEqual([theirs.id]);
    expect(await store.deletionReminders.claim('T2', theirs.id, 'reminder')).toBe(true);
    await store.deletionReminders.release('T1', theirs.id, 'reminder');
    expect(await store.deletionReminders.sent('T1', theirs.id)).toEqual({});
    expect(Object.keys(await store.deletionReminders.sent('T2', theirs.id))).toEqual(['reminder']);

    expect(await approve(theirs.id, 'U_A', store, 'T2')).toMatchObject({ outcome: 'approved' });
    expect((await store.deletionApprovals.of([theirs.id, mine.id], 'T2')).map((a) => a.requestId)).toEqual([theirs.id]);
  });
});
