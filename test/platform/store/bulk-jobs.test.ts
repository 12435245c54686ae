import { statSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { beforeEach, expect, it, vi } from 'vitest';
import type { NewBulkJob, NewBulkRow } from '../../../src/platform/store/bulk-jobs/jobs.js';
import type { Store } from '../../../src/platform/store/store.js';
import { runSql } from '../../kit/raw-sql.js';
import { describeEachEngine, type TestDatabase, useMigratedStore } from '../../kit/store-engines.js';

const rowsOf = (n: number, invalid: number[] = []): NewBulkRow[] =>
  Array.from({ length: n }, (_, i) =>
    invalid.includes(i + 2)
      ? { rowNumber: i + 2, cells: [`bad${i}`], error: 'email: must be an email address' }
      : { rowNumber: i + 2, cells: [`u${i}@example.com`], request: { email: `u${i}@example.com`, nftId: 'n' } },
  );

describeEachEngine('bulk jobs', (engine, create) => {
  const migrated = useMigratedStore(create);
  let db: TestDatabase;
  let store: Store;
  beforeEach(() => ({ db, store } = migrated));

  /** Moves a stored time `ms` into the past, as if the database had written it then. */
  const backdate = (table: string, column: string, ms: number, where: string, params: unknown[]) =>
    runSql(db.databaseUrl, `update ${table} set ${column} = ? where ${where}`, [
      new Date(Date.now() - ms).toISOString(),
      ...params,
    ]);

  const jobInput: Omit<NewBulkJob, 'rows'> = {
    teamId: 'T1',
    requesterId: 'U_REQ',
    kind: 'links',
    sourceName: 'people.csv',
    columns: ['Email'],
    defaults: { nftId: 'n' },
  };
  const draft = async (n = 5, invalid: number[] = []) =>
    (await store.bulkJobs.createDraft({ ...jobInput, rows: rowsOf(n, invalid) })).job;

  const running = async (n = 5, invalid: number[] = []) => {
    const job = await draft(n, invalid);
    const started = await store.bulkJobs.start(job.id, 'U_REQ', 'audit-1');
    if (!started.won) throw new Error('not started');
    return started.job;
  };

  /** Another process on the same database. */
  const secondStore = () => Promise.resolve(migrated.open());

  it('stores a draft with every row: valid ones pending, the others invalid with their problem', async () => {
    const job = await draft(1200, [3, 900]);
    expect(job).toMatchObject({
      id: expect.stringMatching(/^BK-[2-9A-HJKMNP-Z]{6}$/),
      status: 'draft',
      totalRows: 1200,
      validRows: 1198,
      columns: ['Email'],
      defaults: { nftId: 'n' },
    });
    expect(await store.bulkJobs.get(job.id)).toEqual(job);
    expect(await store.bulkJobs.counts(job.id)).toMatchObject({ pending: 1198, invalid: 2, sending: 0 });
    const invalid = await store.bulkJobs.rows(job.id, { statuses: ['invalid'] });
    expect(invalid.map((r) => [r.rowNumber, r.error])).toEqual([
      [3, 'email: must be an email address'],
      [900, 'email: must be an email address'],
    ]);
  });

  it('keeps a draft packed until Start, which writes its rows out with their problems, in the same transaction', async () => {
    const job = await draft(1200, [3, 900]);
    expect(await store.bulkJobs.rows(job.id, { afterRow: 3, limit: 2 })).toEqual([
      expect.objectContaining({ rowNumber: 4, status: 'pending', cells: ['u2@example.com'] }),
      expect.objectContaining({ rowNumber: 5, status: 'pending', request: { email: 'u3@example.com', nftId: 'n' } }),
    ]);
    const started = await store.bulkJobs.start(job.id, 'U_REQ', 'audit-1');
    expect(started.won).toBe(true);
    expect(await store.bulkJobs.counts(job.id)).toMatchObject({ pending: 1198, invalid: 2 });
    const invalid = await store.bulkJobs.rows(job.id, { statuses: ['invalid'] });
    expect(invalid.map((r) => [r.rowNumber, r.status, r.cells, r.request])).toEqual([
      [3, 'invalid', ['bad1'], undefined],
      [900, 'invalid', ['bad898'], undefined],
    ]);
    const claimed = await store.bulkJobs.claim(job.id, 'w', 2);
    expect(claimed.map((r) => [r.rowNumber, r.request])).toEqual([
      [2, { email: 'u0@example.com', nftId: 'n' }],
      [4, { email: 'u2@example.com', nftId: 'n' }],
    ]);
    // Started once: a second Start finds no draft to write out again.
    expect((await store.bulkJobs.start(job.id, 'U_REQ', 'audit-1')).won).toBe(false);
    expect((await store.bulkJobs.counts(job.id)).pending).toBe(1196);
  });

  it('stores nothing when reading the rows fails part-way', async () => {
    async function* failing() {
      yield* rowsOf(3);
      throw new Error('the table turned out unusable');
    }
    await expect(store.bulkJobs.createDraft({ ...jobInput, rows: failing() })).rejects.toThrow('unusable');
    expect(await store.bulkJobs.list({ statuses: ['draft'] })).toEqual([]);
  });

  it('scrubs the packed rows as the database scrubs every value', async () => {
    const { job } = await store.bulkJobs.createDraft(
      { ...jobInput, rows: [{ rowNumber: 2, cells: ['xoxb-123-secret'], error: 'bad: xoxb-123-secret' }] },
      new Date(),
      { scrub: (text) => text.replaceAll('xoxb-123-secret', '[redacted]') },
    );
    const [row] = await store.bulkJobs.rows(job.id);
    expect([row?.cells, row?.error]).toEqual([['[redacted]'], 'bad: [redacted]']);
  });

  it("keeps a requester's newest drafts only, says which were dropped, and leaves started jobs and others alone", async () => {
    const at = (minutesAgo: number) => new Date(Date.now() - minutesAgo * 60_000);
    const create = async (requesterId: string, minutesAgo: number, keepNewest?: number) =>
      store.bulkJobs.createDraft(
        { ...jobInput, requesterId, rows: rowsOf(2) },
        at(minutesAgo),
        keepNewest === undefined ? {} : { keepNewest },
      );
    const oldest = (await create('U_REQ', 50)).job;
    const older = (await create('U_REQ', 40)).job;
    const startedOne = (await create('U_REQ', 45)).job;
    expect((await store.bulkJobs.start(startedOne.id, 'U_REQ', 'a')).won).toBe(true);
    const someoneElse = (await create('U_OTHER', 60)).job;
    const middle = (await create('U_REQ', 30, 3)).job;
    expect((await create('U_REQ', 20, 3)).dropped.map((j) => j.id)).toEqual([oldest.id]);
    const newest = await create('U_REQ', 10, 3);
    expect(newest.dropped).toEqual([expect.objectContaining({ id: older.id, sourceName: 'people.csv' })]);
    const left = await store.bulkJobs.list({ statuses: ['draft'], requesterId: 'U_REQ' });
    expect(left.map((j) => j.id)).toEqual([newest.job.id, expect.any(String), middle.id]);
    expect(await store.bulkJobs.get(oldest.id)).toBeUndefined();
    expect(await store.bulkJobs.rows(oldest.id)).toEqual([]);
    expect(await store.bulkJobs.get(someoneElse.id)).toMatchObject({ status: 'draft' });
    expect(await store.bulkJobs.get(startedOne.id)).toMatchObject({ status: 'running' });
    expect((await store.bulkJobs.counts(startedOne.id)).pending).toBe(2);
  });

  it('a draft of 5,000 rows takes a few hundred KB at most, not megabytes', async () => {
    const rows: NewBulkRow[] = Array.from({ length: 5_000 }, (_, i) => ({
      rowNumber: i + 2,
      cells: [`user${i}@example.com`, `cus_${i}`],
      request: {
        email: `user${i}@example.com`,
        customerIds: [`cus_${i}`],
        nftId: 'nft-campaign-2030',
        walletOptions: 'CUSTODIAL',
        type: 'GENERAL',
        isActive: true,
      },
    }));
    const size = async () => {
      if (engine === 'sqlite') {
        const path = db.location.engine === 'sqlite' ? db.location.path : '';
        return [path, `${path}-wal`].reduce(
          (sum, file) => sum + (statSync(file, { throwIfNoEntry: false })?.size ?? 0),
          0,
        );
      }
      return 0;
    };
    const before = await size();
    const { job } = await store.bulkJobs.createDraft({ ...jobInput, rows });
    expect(job).toMatchObject({ totalRows: 5_000, validRows: 5_000 });
    if (engine === 'sqlite') expect((await size()) - before).toBeLessThan(400 * 1024);
    const [last] = await store.bulkJobs.rows(job.id, { afterRow: 5_000 });
    expect(last).toMatchObject({ rowNumber: 5_001, cells: ['user4999@example.com', 'cus_4999'] });
  });

  it('starts only by its requester, once; nothing is claimed from a draft', async () => {
    const job = await draft();
    expect(await store.bulkJobs.claim(job.id, 'w1')).toEqual([]);
    expect((await store.bulkJobs.start(job.id, 'U_OTHER', 'a')).won).toBe(false);
    const results = await Promise.all([1, 2, 3].map(() => store.bulkJobs.start(job.id, 'U_REQ', 'a')));
    expect(results.filter((r) => r.won)).toHaveLength(1);
    expect((await store.bulkJobs.get(job.id))?.status).toBe('running');
  });

  it('hands each row to exactly one of many processes claiming at once', async () => {
    const job = await running(60);
    // PostgreSQL: three connection pools, as three processes have. SQLite: three claimers on one connection (in
    // one thread, a second connection's synchronous wait for the write lock would block the holder itself).
    const stores = engine === 'postgres' ? [store, await secondStore(), await secondStore()] : [store, store, store];
    const claimed: number[] = [];
    await Promise.all(
      stores.map(async (s, i) => {
        for (;;) {
          const rows = await s.bulkJobs.claim(job.id, `w${i}`, 2);
          if (rows.length === 0) {
            // a claim may lose every candidate to another process; stop only when nothing is pending
            if ((await s.bulkJobs.counts(job.id)).pending === 0) return;
            continue;
          }
          for (const row of rows) {
            claimed.push(row.rowNumber);
            expect(
              await s.bulkJobs.settle(job.id, row.rowNumber, `w${i}`, {
                status: 'done',
                made: { kind: 'link', link: {} },
              }),
            ).toBe(true);
          }
        }
      }),
    );
    expect(claimed.sort((a, b) => a - b)).toEqual(Array.from({ length: 60 }, (_, i) => i + 2));
    expect(await store.bulkJobs.counts(job.id)).toMatchObject({ done: 60, pending: 0, sending: 0 });
  });

  it('settles and releases a row only for the process that claimed it', async () => {
    const job = await running(3);
    const [row] = await store.bulkJobs.claim(job.id, 'w1');
    expect(row).toMatchObject({ rowNumber: 2, status: 'sending', claimedBy: 'w1' });
    expect(await store.bulkJobs.settle(job.id, 2, 'w2', { status: 'done', made: { kind: 'link', link: {} } })).toBe(
      false,
    );
    expect(await store.bulkJobs.release(job.id, 2, 'w2')).toBe(false);
    expect(await store.bulkJobs.release(job.id, 2, 'w1')).toBe(true);
    const [again] = await store.bulkJobs.claim(job.id, 'w2');
    expect(again?.rowNumber).toBe(2);
    expect(
      await store.bulkJobs.settle(job.id, 2, 'w2', {
        status: 'done',
        resultUrl: 'https://mint.example/l/1',
        made: { kind: 'link', link: {} },
      }),
    ).toBe(true);
    expect(await store.bulkJobs.settle(job.id, 2, 'w2', { status: 'failed', error: 'late' })).toBe(false);
    const [settled] = await store.bulkJobs.rows(job.id, { limit: 1 });
    expect(settled).toMatchObject({ status: 'done', resultUrl: 'https://mint.example/l/1', error: undefined });
  });

  it('marks rows claimed too long ago as unknown, and never hands them out again', async () => {
    const job = await running(3);
    await store.bulkJobs.claim(job.id, 'dead', 1);
    await backdate('bulk_rows', 'claimed_at', 60_000, 'job_id = ? and row_number = 2', [job.id]);
    await store.bulkJobs.claim(job.id, 'alive', 1);
    expect(await store.bulkJobs.markStaleUnknown(30_000, 'lost')).toEqual([job.id]);
    expect((await store.bulkJobs.rows(job.id)).map((r) => [r.rowNumber, r.status])).toEqual([
      [2, 'unknown'],
      [3, 'sending'],
      [4, 'pending'],
    ]);
    expect(await store.bulkJobs.settle(job.id, 2, 'dead', { status: 'done', made: { kind: 'link', link: {} } })).toBe(
      false,
    );
    expect((await store.bulkJobs.claim(job.id, 'w', 5)).map((r) => r.rowNumber)).toEqual([4]);
  });

  it('pauses and resumes (claims stop while paused); cancels the rows not yet sent', async () => {
    const job = await running(5);
    await store.bulkJobs.claim(job.id, 'w1');
    expect((await store.bulkJobs.pause(job.id, 'U_REQ')).won).toBe(true);
    expect((await store.bulkJobs.pause(job.id, 'U_REQ')).won).toBe(false);
    expect(await store.bulkJobs.claim(job.id, 'w1')).toEqual([]);
    expect((await store.bulkJobs.resume(job.id, 'U_APPROVER')).job).toMatchObject({
      status: 'running',
      changedBy: 'U_APPROVER',
    });
    const cancelled = await Promise.all([store.bulkJobs.cancel(job.id, 'U_REQ'), store.bulkJobs.cancel(job.id, 'U_X')]);
    expect(cancelled.filter((c) => c.won)).toHaveLength(1);
    expect(await store.bulkJobs.counts(job.id)).toMatchObject({ sending: 1, cancelled: 4, pending: 0 });
    expect(await store.bulkJobs.claim(job.id, 'w1')).toEqual([]);
    // The row in flight settles as it would have; then, and only then, the results can be written.
    expect(await store.bulkJobs.claimFinish(job.id, 60_000)).toBeUndefined();
    await store.bulkJobs.settle(job.id, 2, 'w1', { status: 'failed', error: 'HTTP 400' });
    expect((await store.bulkJobs.claimFinish(job.id, 60_000))?.status).toBe('finishing');
  });

  it('finishes once nothing is pending or being sent; one process writes the results, another takes over a silent one', async () => {
    const job = await running(2);
    const rows = await store.bulkJobs.claim(job.id, 'w', 2);
    expect((await store.bulkJobs.finishIfSettled(job.id)).won).toBe(false);
    for (const row of rows)
      await store.bulkJobs.settle(job.id, row.rowNumber, 'w', { status: 'done', made: { kind: 'link', link: {} } });
    const finishing = await Promise.all([
      store.bulkJobs.finishIfSettled(job.id),
      store.bulkJobs.finishIfSettled(job.id),
    ]);
    expect(finishing.filter((f) => f.won)).toHaveLength(1);

    const first = await store.bulkJobs.claimFinish(job.id, 60_000);
    expect(Math.abs(Date.parse(first?.finishClaimedAt ?? '') - Date.now())).toBeLessThan(5_000); // the database's time
    const earlier = new Date(Date.now() - 10_000).toISOString();
    await backdate('bulk_jobs', 'finish_claimed_at', 10_000, 'id = ?', [job.id]);
    expect(await store.bulkJobs.claimFinish(job.id, 60_000)).toBeUndefined(); // silent for 10 s of a 60 s lease
    const takeover = await store.bulkJobs.claimFinish(job.id, 5_000);
    expect(takeover?.finishAttempts).toBe(2);
    expect(takeover?.finishClaimedAt).not.toBe(earlier);
    expect((await store.bulkJobs.complete(job.id, first, { fileId: 'F1' })).won).toBe(false);
    const done = await store.bulkJobs.complete(job.id, takeover, { fileId: 'F2' });
    expect(done.job).toMatchObject({ status: 'done', resultsFileId: 'F2' });
  });

  it('allows one progress update per interval, whoever asks, timed by the database clock; posting the message counts as one', async () => {
    const job = await running(1);
    const first = await Promise.all([1, 2, 3].map(() => store.bulkJobs.claimProgress(job.id, 300)));
    expect(first.filter(Boolean)).toHaveLength(1);
    expect(await store.bulkJobs.claimProgress(job.id, 300)).toBe(false);
    const { progressAt } = (await store.bulkJobs.get(job.id)) ?? {};
    expect(Math.abs((progressAt?.getTime() ?? 0) - Date.now())).toBeLessThan(5_000); // ISO text, as the others
    // A process whose clock is an hour ahead gets no earlier turn: its clock is not asked.
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + 3_600_000);
    try {
      expect(await store.bulkJobs.claimProgress(job.id, 300)).toBe(false);
    } finally {
      vi.useRealTimers();
    }
    await sleep(400);
    expect(await store.bulkJobs.claimProgress(job.id, 300)).toBe(true);

    const posted = await running(1);
    await store.bulkJobs.setMessage(posted.id, 'D1', '1.000100');
    expect(await store.bulkJobs.claimProgress(posted.id, 2_000)).toBe(false); // the first update 2 s after the post
    expect(await store.bulkJobs.get(posted.id)).toMatchObject({ messageChannel: 'D1', messageTs: '1.000100' });
  });

  it('records what a message shows, and forgets it when two updates overlapped or one failed', async () => {
    const job = await running(1);
    expect(await store.bulkJobs.recordProgress(job.id, 'd1', undefined)).toBe(true);
    expect((await store.bulkJobs.get(job.id))?.progressDigest).toBe('d1');
    // Two updates built on d1: the first to record wins, the second clears it (Slack may have applied either last).
    expect(await store.bulkJobs.recordProgress(job.id, 'd2', 'd1')).toBe(true);
    expect(await store.bulkJobs.recordProgress(job.id, 'd3', 'd1')).toBe(false);
    expect((await store.bulkJobs.get(job.id))?.progressDigest).toBeUndefined();
    expect(await store.bulkJobs.recordProgress(job.id, 'd4', undefined)).toBe(true);
    // An update that failed: the message may show it or not.
    expect(await store.bulkJobs.recordProgress(job.id, undefined, 'd4')).toBe(false);
    expect((await store.bulkJobs.get(job.id))?.progressDigest).toBeUndefined();
  });

  it('lists jobs that ended lately, and ended jobs whose results file was not sent', async () => {
    const end = async (results: { fileId?: string; note?: string }) => {
      const job = await running(1);
      await store.bulkJobs.claim(job.id, 'w');
      await store.bulkJobs.settle(job.id, 2, 'w', { status: 'done', made: { kind: 'link', link: {} } });
      expect((await store.bulkJobs.finishIfSettled(job.id)).won).toBe(true);
      const claimed = await store.bulkJobs.claimFinish(job.id, 60_000);
      expect((await store.bulkJobs.complete(job.id, claimed, results)).won).toBe(true);
      return job.id;
    };
    const delivered = await end({ fileId: 'F1' });
    const undelivered = await end({ note: 'The results file could not be sent: internal_error' });
    const live = (await running(1)).id;
    expect(
      (await store.bulkJobs.endedSince(new Date(Date.now() - 60_000))).map((ref) => [ref.id, ref.teamId]).sort(),
    ).toEqual([delivered, undelivered].sort().map((id) => [id, 'T1']));
    expect(await store.bulkJobs.endedSince(new Date(Date.now() + 60_000))).toEqual([]);
    const shown = async () =>
      (await store.bulkJobs.list({ statuses: ['running'], undelivered: true, requesterId: 'U_REQ' }))
        .map((j) => j.id)
        .sort();
    expect(await shown()).toEqual([live, undelivered].sort());
    expect((await store.bulkJobs.list({ statuses: ['running'] })).map((j) => j.id)).toEqual([live]);
    await store.bulkJobs.setResultsFile(undelivered, 'F2');
    expect(await shown()).toEqual([live]);
  });

  it('lists jobs by status and requester, counts recent rows, forgets old drafts with their rows', async () => {
    const { job: old } = await store.bulkJobs.createDraft(
      {
        teamId: undefined,
        requesterId: 'U1',
        kind: 'wallets',
        sourceName: 'pasted text',
        columns: ['userId'],
        defaults: {},
        rows: rowsOf(3),
      },
      new Date(Date.now() - 48 * 3_600_000),
    );
    const job = await running(2);
    const [row] = await store.bulkJobs.claim(job.id, 'w');
    await store.bulkJobs.settle(job.id, row?.rowNumber ?? 0, 'w', { status: 'unknown', error: 'timeout' });
    expect(await store.bulkJobs.settledSince(job.id, new Date(Date.now() - 60_000))).toBe(1);
    expect(await store.bulkJobs.ids(['running'])).toEqual([{ id: job.id, teamId: 'T1' }]);
    expect(
      (await store.bulkJobs.list({ statuses: ['running', 'paused'], requesterId: 'U_REQ' })).map((j) => j.id),
    ).toEqual([job.id]);
    expect(await store.bulkJobs.list({ statuses: ['running'], notRequesterId: 'U_REQ' })).toEqual([]);
    const { job: oldStarted } = await store.bulkJobs.createDraft(
      { ...jobInput, rows: rowsOf(2) },
      new Date(Date.now() - 48 * 3_600_000),
    );
    expect((await store.bulkJobs.start(oldStarted.id, 'U_REQ', 'a')).won).toBe(true);
    expect(await store.bulkJobs.deleteDraftsBefore(new Date(Date.now() - 24 * 3_600_000))).toBe(1);
    expect(await store.bulkJobs.get(old.id)).toBeUndefined();
    expect(await store.bulkJobs.rows(old.id)).toEqual([]);
    // A job as old that was started is kept, with its rows.
    expect(await store.bulkJobs.get(oldStarted.id)).toMatchObject({ status: 'running' });
    expect(await store.bulkJobs.counts(oldStarted.id)).toMatchObject({ pending: 2 });
  });

  it('hands the worker the oldest running jobs first, however many there are', async () => {
    const startedAt = async (minutesAgo: number) => {
      const { job: created } = await store.bulkJobs.createDraft(
        { ...jobInput, rows: rowsOf(1) },
        new Date(Date.now() - minutesAgo * 60_000),
      );
      await store.bulkJobs.start(created.id, 'U_REQ', 'a');
      return created.id;
    };
    const middle = await startedAt(20);
    const newest = await startedAt(5);
    const oldest = await startedAt(30);
    expect(
      (await store.bulkJobs.list({ statuses: ['running'], limit: 2, oldestFirst: true })).map((j) => j.id),
    ).toEqual([oldest, middle]);
    expect((await store.bulkJobs.list({ statuses: ['running'], limit: 2 })).map((j) => j.id)).toEqual([newest, middle]);
  });
});
