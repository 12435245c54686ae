import { beforeEach, expect, it } from 'vitest';
import type { BulkJob, NewBulkJob, NewBulkRow } from '../../../src/platform/store/bulk-jobs/jobs.js';
import type { Store } from '../../../src/platform/store/store.js';
import { runSql } from '../../kit/raw-sql.js';
import { describeEachEngine, type TestDatabase, useMigratedStore } from '../../kit/store-engines.js';

const A = 'T0AAAAAA1';
const B = 'T0BBBBBB2';

const rowsOf = (n: number): NewBulkRow[] =>
  Array.from({ length: n }, (_, i) => ({
    rowNumber: i + 2,
    cells: [`u${i}@example.com`],
    request: { email: `u${i}@example.com`, nftId: 'n' },
  }));

/* The bulk jobs of one workspace kept apart from another's, and each workspace's limit of rows in flight. */
describeEachEngine('bulk jobs by workspace', (engine, create) => {
  const migrated = useMigratedStore(create);
  let db: TestDatabase;
  let store: Store;
  beforeEach(() => ({ db, store } = migrated));

  const input = (teamId: string, n: number, requesterId = 'U_REQ'): NewBulkJob => ({
    teamId,
    requesterId,
    kind: 'links',
    sourceName: 'people.csv',
    columns: ['email'],
    defaults: {},
    rows: rowsOf(n),
  });
  const running = async (teamId: string, n = 5, createdAt = new Date()): Promise<BulkJob> => {
    const jobs = store.bulkJobs.inTeam(teamId);
    const { job } = await jobs.createDraft(input(teamId, n), createdAt);
    const started = await jobs.start(job.id, 'U_REQ', 'audit-1');
    if (!started.won) throw new Error('not started');
    return started.job;
  };

  it('reads and changes nothing of another workspace’s job through a workspace’s repository', async () => {
    const { job: draftOfA } = await store.bulkJobs.inTeam(A).createDraft(input(A, 3));
    const jobOfA = await running(A, 4);
    const [claimed] = await store.bulkJobs.inTeam(A).claim(jobOfA.id, 'w');
    const fromB = store.bulkJobs.inTeam(B);

    expect(await fromB.get(jobOfA.id)).toBeUndefined();
    expect(await fromB.get(draftOfA.id)).toBeUndefined();
    expect(await fromB.rows(jobOfA.id)).toEqual([]);
    expect(await fromB.rows(draftOfA.id)).toEqual([]);
    expect(Object.values(await fromB.counts(jobOfA.id)).every((n) => n === 0)).toBe(true);
    expect(Object.values(await fromB.counts(draftOfA.id)).every((n) => n === 0)).toBe(true);
    expect(await fromB.settledSince(jobOfA.id, new Date(0))).toBe(0);
    expect((await fromB.start(draftOfA.id, 'U_REQ', 'forged')).won).toBe(false);
    expect((await fromB.pause(jobOfA.id, 'U_REQ')).won).toBe(false);
    expect((await fromB.cancel(jobOfA.id, 'U_REQ')).won).toBe(false);
    expect(await fromB.claim(jobOfA.id, 'w-b', 5)).toEqual([]);
    expect(
      await fromB.settle(jobOfA.id, claimed?.rowNumber ?? 0, 'w', { status: 'done', made: { kind: 'link', link: {} } }),
    ).toBe(false);
    expect(await fromB.release(jobOfA.id, claimed?.rowNumber ?? 0, 'w')).toBe(false);
    expect(await fromB.claimProgress(jobOfA.id, 0)).toBe(false);
    await fromB.setMessage(jobOfA.id, 'D0FORGED', '1.1');
    expect(await fromB.recordProgress(jobOfA.id, 'digest', undefined)).toBe(false);
    expect(await fromB.list({ statuses: ['draft', 'running'] })).toEqual([]);
    expect(await fromB.ids(['draft', 'running'])).toEqual([]);
    expect(await fromB.runningTeams()).toEqual([]);
    expect(await fromB.deleteDraftsBefore(new Date(Date.now() + 60_000))).toBe(0);

    const ofA = store.bulkJobs.inTeam(A);
    expect(await ofA.get(jobOfA.id)).toMatchObject({
      status: 'running',
      messageChannel: undefined,
      progressDigest: undefined,
    });
    expect(await ofA.get(draftOfA.id)).toMatchObject({ status: 'draft' });
    expect(await ofA.counts(jobOfA.id)).toMatchObject({ pending: 3, sending: 1 });
    expect(await ofA.rows(draftOfA.id)).toHaveLength(3);
    expect(
      await ofA.settle(jobOfA.id, claimed?.rowNumber ?? 0, 'w', { status: 'done', made: { kind: 'link', link: {} } }),
    ).toBe(true);

    // A finishing job: its results are B's to claim, complete or record neither.
    expect((await ofA.cancel(jobOfA.id, 'U_REQ')).won).toBe(true);
    expect(await fromB.claimFinish(jobOfA.id, 0)).toBeUndefined();
    const finish = await ofA.claimFinish(jobOfA.id, 60_000);
    expect((await fromB.complete(jobOfA.id, finish, { fileId: 'F_FORGED' })).won).toBe(false);
    expect((await ofA.complete(jobOfA.id, finish, { note: 'not sent' })).won).toBe(true);
    await fromB.setResultsFile(jobOfA.id, 'F_FORGED');
    expect(await ofA.get(jobOfA.id)).toMatchObject({ status: 'done', resultsFileId: undefined });
    expect(await fromB.endedSince(new Date(0))).toEqual([]);
    expect(await ofA.endedSince(new Date(0))).toEqual([{ id: jobOfA.id, teamId: A }]);
  });

  it('refuses a draft for another workspace, and keeps a person’s newest drafts per workspace', async () => {
    await expect(store.bulkJobs.inTeam(B).createDraft(input(A, 1))).rejects.toThrow('another workspace');
    const inA = await store.bulkJobs.inTeam(A).createDraft(input(A, 1), new Date(Date.now() - 60_000));
    // The same person (an Enterprise Grid user has one id in every workspace) checks files in B.
    for (let i = 0; i < 3; i += 1) {
      const { dropped } = await store.bulkJobs.inTeam(B).createDraft(input(B, 1), new Date(), { keepNewest: 2 });
      expect(dropped.map((job) => job.teamId)).not.toContain(A);
    }
    expect(await store.bulkJobs.inTeam(A).get(inA.job.id)).toMatchObject({ status: 'draft' });
    expect(await store.bulkJobs.inTeam(B).list({ statuses: ['draft'] })).toHaveLength(2);
  });

  it('claims within the workspace’s limit of rows in flight, counted over all its jobs, oldest job first', async () => {
    const older = await running(A, 3, new Date(Date.now() - 60_000));
    const newer = await running(A, 3);
    const jobsOfA = store.bulkJobs.inTeam(A);

    const first = await jobsOfA.claimNext('w1', { concurrency: 2, limit: 5 });
    expect(first.rows.map((r) => [r.jobId, r.rowNumber, r.kind])).toEqual([
      [older.id, 2, 'links'],
      [older.id, 3, 'links'],
    ]);
    expect(await jobsOfA.claimNext('w2', { concurrency: 2 })).toEqual({ rows: [], atLimit: true });
    // The limit is read at each claim: raised, there is room for one more, taken from the older job first.
    const third = await jobsOfA.claimNext('w2', { concurrency: 3, limit: 5 });
    expect(third.rows.map((r) => [r.jobId, r.rowNumber])).toEqual([[older.id, 4]]);
    // A settled row frees a place, then the newer job's rows come.
    await jobsOfA.settle(older.id, 2, 'w1', { status: 'done', made: { kind: 'link', link: {} } });
    const next = await jobsOfA.claimNext('w1', { concurrency: 3 });
    expect(next.rows.map((r) => [r.jobId, r.rowNumber])).toEqual([[newer.id, 2]]);
    // Rows of a paused job still in flight count: they are at the service.
    await jobsOfA.pause(newer.id, 'U_REQ');
    expect((await jobsOfA.claimNext('w1', { concurrency: 3 })).atLimit).toBe(true);

    // Another workspace has its own limit, whatever A's jobs do.
    const jobOfB = await running(B, 2);
    const ofB = await store.bulkJobs.inTeam(B).claimNext('w1', { concurrency: 1 });
    expect(ofB.rows.map((r) => [r.jobId, r.rowNumber])).toEqual([[jobOfB.id, 2]]);
    // Nothing left to send (the rest in flight, the newer job paused) is not "no room".
    await jobsOfA.settle(older.id, 3, 'w1', { status: 'done', made: { kind: 'link', link: {} } });
    expect(await jobsOfA.claimNext('w1', { concurrency: 3 })).toEqual({ rows: [], atLimit: false });
    await expect(store.bulkJobs.claimNext('w1', { concurrency: 1 })).rejects.toThrow('inTeam');
  });

  it('never has more rows of a workspace in flight than its limit, however many processes claim at once', async () => {
    const job = await running(A, 40);
    // PostgreSQL: four connection pools, as four processes have. SQLite: claimers on one connection (BEGIN
    // IMMEDIATE makes processes on one file take turns; in one thread a second connection would block itself).
    const processes = [1, 2, 3, 4].map(() => {
      if (engine === 'sqlite') return store;
      return migrated.open();
    });
    let inFlight = 0;
    let peak = 0;
    let sent = 0;
    let emptyClaims = 0;
    // The Mint call holds its row until the workspace's limit is full and claimers were refused since (a fourth
    // row would have been claimed then), or until no row is left to claim: the rows overlap however slowly the
    // claims come, with no race against a fixed delay. A claimer can be refused below the limit too (another
    // holds the workspace's claim lock), so refusals alone release a row only after many (the last resort).
    const mintCall = async () => {
      const before = emptyClaims;
      const released = () => {
        const refused = emptyClaims - before;
        return (inFlight >= 3 && refused >= 3) || sent + inFlight === 40 || refused >= 120;
      };
      while (!released()) await new Promise((resolve) => setTimeout(resolve, 1));
    };
    await Promise.all(
      processes.flatMap((process, p) =>
        [1, 2, 3].map(async (slot) => {
          const worker = `p${p}s${slot}`;
          const jobs = process.bulkJobs.inTeam(A);
          for (let idle = 0; idle < 200 && sent < 40;) {
            const { rows } = await jobs.claimNext(worker, { concurrency: 3 });
            const [row] = rows;
            if (!row) {
              idle += 1;
              emptyClaims += 1;
              await new Promise((resolve) => setTimeout(resolve, 5));
              continue;
            }
            inFlight += 1;
            peak = Math.max(peak, inFlight);
            await mintCall();
            inFlight -= 1; // before the row settles: the count is taken no later than the database's
            sent += 1;
            expect(
              await jobs.settle(job.id, row.rowNumber, worker, { status: 'done', made: { kind: 'link', link: {} } }),
            ).toBe(true);
          }
        }),
      ),
    );
    expect(sent).toBe(40);
    expect(peak).toBe(3);
    expect(await store.bulkJobs.inTeam(A).counts(job.id)).toMatchObject({ done: 40, pending: 0, sending: 0 });
  }, 30_000);

  it('lists the workspaces with running jobs, the one waiting longest first', async () => {
    await running(B, 1, new Date(Date.now() - 60_000));
    await running(A, 1, new Date(Date.now() - 30_000));
    await running(B, 1);
    const { job: paused } = await store.bulkJobs.inTeam('T0PAUSED3').createDraft(input('T0PAUSED3', 1));
    await store.bulkJobs.inTeam('T0PAUSED3').start(paused.id, 'U_REQ', 'a');
    await store.bulkJobs.inTeam('T0PAUSED3').pause(paused.id, 'U_REQ');
    expect(await store.bulkJobs.runningTeams()).toEqual([B, A]);
  });

  it('stops every running or paused job of a workspace: unsent rows cancelled with the reason, rows in flight end as they end', async () => {
    const stopping = { by: 'system', note: 'the app was removed from the workspace', rowError: 'not sent: removed' };
    const live = await running(A, 4);
    const paused = await running(A, 2);
    await store.bulkJobs.inTeam(A).pause(paused.id, 'U_REQ');
    const [inFlight] = await store.bulkJobs.inTeam(A).claim(live.id, 'w');
    const other = await running(B, 2);
    await expect(store.bulkJobs.stopAll(stopping)).rejects.toThrow('inTeam');

    const stopped = await store.bulkJobs.inTeam(A).stopAll(stopping);
    expect(stopped.map((job) => job.id).sort()).toEqual([live.id, paused.id].sort());
    for (const job of stopped)
      expect(job).toMatchObject({
        status: 'finishing',
        cancelledBy: 'system',
        changedBy: 'system',
        note: stopping.note,
      });
    const ofA = store.bulkJobs.inTeam(A);
    expect(await ofA.counts(live.id)).toMatchObject({ sending: 1, cancelled: 3, pending: 0 });
    expect((await ofA.rows(live.id, { statuses: ['cancelled'] })).map((r) => r.error)).toEqual(
      Array(3).fill('not sent: removed'),
    );
    expect(await ofA.claimFinish(live.id, 60_000)).toBeUndefined(); // the row in flight first
    expect(
      await ofA.settle(live.id, inFlight?.rowNumber ?? 0, 'w', { status: 'done', made: { kind: 'link', link: {} } }),
    ).toBe(true);
    expect(await ofA.claimFinish(live.id, 60_000)).toMatchObject({ status: 'finishing' });
    expect(await store.bulkJobs.inTeam(B).get(other.id)).toMatchObject({ status: 'running' });
    expect(await store.bulkJobs.inTeam(B).counts(other.id)).toMatchObject({ pending: 2 });
    expect(await ofA.stopAll(stopping)).toEqual([]);
  });

  it('marks lost rows unknown in one workspace only when asked for it', async () => {
    const ofA = await running(A, 2);
    const ofB = await running(B, 2);
    await store.bulkJobs.inTeam(A).claim(ofA.id, 'dead');
    await store.bulkJobs.inTeam(B).claim(ofB.id, 'dead');
    await runSql(db.databaseUrl, 'update bulk_rows set claimed_at = ? where status = ?', [
      new Date(Date.now() - 120_000).toISOString(),
      'sending',
    ]);
    expect(await store.bulkJobs.inTeam(B).markStaleUnknown(30_000, 'lost')).toEqual([ofB.id]);
    expect(await store.bulkJobs.inTeam(A).counts(ofA.id)).toMatchObject({ sending: 1, unknown: 0 });
    expect(await store.bulkJobs.markStaleUnknown(30_000, 'lost')).toEqual([ofA.id]);
  });
});
