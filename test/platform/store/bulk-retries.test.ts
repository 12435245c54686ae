import { beforeEach, expect, it } from 'vitest';
import type { BulkJob, NewBulkJob, NewBulkRow } from '../../../src/platform/store/bulk-jobs/jobs.js';
import type { Store } from '../../../src/platform/store/store.js';
import { describeEachEngine, useMigratedStore } from '../../kit/store-engines.js';

const row = (rowNumber: number, extra: Partial<NewBulkRow> = {}): NewBulkRow => ({
  rowNumber,
  cells: [`u${rowNumber}@example.com`],
  request: { email: `u${rowNumber}@example.com`, nftId: 'n' },
  ...extra,
});

describeEachEngine('bulk jobs: retries of failed rows', (_engine, create) => {
  const migrated = useMigratedStore(create);
  let store: Store;
  beforeEach(() => ({ store } = migrated));

  const input: Omit<NewBulkJob, 'rows'> = {
    teamId: 'T1',
    requesterId: 'U_REQ',
    kind: 'links',
    sourceName: 'people.csv',
    columns: ['email'],
    defaults: { nftId: 'n' },
  };
  const jobs = () => store.bulkJobs.inTeam('T1');

  /** A job of 4 rows that ended: row 2 created, row 3 failed, row 4 unknown, row 5 failed. */
  const endedJob = async (): Promise<BulkJob> => {
    const { job } = await jobs().createDraft({ ...input, rows: [row(2), row(3), row(4), row(5)] });
    expect((await jobs().start(job.id, 'U_REQ', 'audit-1')).won).toBe(true);
    await jobs().claim(job.id, 'w', 4);
    await jobs().settle(job.id, 2, 'w', { status: 'done', made: { kind: 'link', link: {} } });
    await jobs().settle(job.id, 3, 'w', { status: 'failed', error: 'answered 400' });
    await jobs().settle(job.id, 4, 'w', { status: 'unknown', error: 'answered 500' });
    await jobs().settle(job.id, 5, 'w', { status: 'failed', error: 'answered 400' });
    expect((await jobs().finishIfSettled(job.id)).won).toBe(true);
    const claimed = await jobs().claimFinish(job.id, 60_000);
    expect((await jobs().complete(job.id, claimed, { fileId: 'F1' })).won).toBe(true);
    return job;
  };
  const retryDraft = async (of: BulkJob, requesterId = 'U_REQ') =>
    jobs().createDraft({
      ...input,
      requesterId,
      sourceName: `failed rows of ${of.id}`,
      retryOf: of.id,
      rows: [row(3), row(4, { held: true }), row(5)],
    });

  it('keeps held-back rows apart in the draft and out of the job unless Start chooses them', async () => {
    const original = await endedJob();
    const { job: draft } = await retryDraft(original);
    expect(draft).toMatchObject({ status: 'draft', retryOf: original.id, totalRows: 2, validRows: 2, heldRows: 1 });
    expect((await jobs().rows(draft.id)).map((r) => r.rowNumber)).toEqual([3, 5]);
    expect((await jobs().rows(draft.id, { held: true })).map((r) => r.rowNumber)).toEqual([4]);

    const started = await jobs().start(draft.id, 'U_REQ', 'audit-2');
    expect(started).toMatchObject({ won: true, job: { status: 'running', totalRows: 2, validRows: 2 } });
    expect((await jobs().rows(draft.id)).map((r) => [r.rowNumber, r.status])).toEqual([
      [3, 'pending'],
      [5, 'pending'],
    ]);
    expect(await jobs().get(original.id)).toMatchObject({ retriedAs: draft.id });
  });

  it('writes the held-back rows out, and counts them, when Start chooses them', async () => {
    const original = await endedJob();
    const { job: draft } = await retryDraft(original);
    const started = await jobs().start(draft.id, 'U_REQ', 'audit-2', { includeHeld: true });
    expect(started).toMatchObject({ won: true, job: { totalRows: 3, validRows: 3 } });
    expect((await jobs().rows(draft.id)).map((r) => [r.rowNumber, r.status])).toEqual([
      [3, 'pending'],
      [4, 'pending'],
      [5, 'pending'],
    ]);
  });

  it('gives a requester back their unstarted retry of a job instead of a second one', async () => {
    const original = await endedJob();
    const first = await retryDraft(original);
    const again = await retryDraft(original);
    expect(again.job.id).toBe(first.job.id);
    expect((await retryDraft(original, 'U_OTHER')).job.id).not.toBe(first.job.id);
  });

  it('retries a job once: of two retries, one starts; the other stays a draft and the job names the winner', async () => {
    const original = await endedJob();
    const mine = (await retryDraft(original)).job;
    const theirs = (await retryDraft(original, 'U_OTHER')).job;
    const results = await Promise.all([
      jobs().start(mine.id, 'U_REQ', 'a'),
      jobs().start(theirs.id, 'U_OTHER', 'b'),
      jobs().start(mine.id, 'U_REQ', 'c'),
    ]);
    expect(results.filter((r) => r.won)).toHaveLength(1);
    const winner = results.find((r) => r.won)?.job.id;
    expect(await jobs().get(original.id)).toMatchObject({ retriedAs: winner });
    const loser = winner === mine.id ? theirs.id : mine.id;
    expect(await jobs().get(loser)).toMatchObject({ status: 'draft' });
    expect(await jobs().counts(loser)).toMatchObject({ pending: 2, sending: 0 }); // its rows never written out
  });

  it('does not mark the job retried when the retry cannot start (someone else pressed Start)', async () => {
    const original = await endedJob();
    const { job: draft } = await retryDraft(original);
    expect((await jobs().start(draft.id, 'U_STRANGER', 'a')).won).toBe(false);
    expect((await jobs().get(original.id))?.retriedAs).toBeUndefined();
    expect((await jobs().start(draft.id, 'U_REQ', 'a')).won).toBe(true);
  });

  it("marks no job of another workspace: a retry names its own workspace's job only", async () => {
    const original = await endedJob();
    const forged = await store.bulkJobs.inTeam('T2').createDraft({
      ...input,
      teamId: 'T2',
      retryOf: original.id,
      rows: [row(3)],
    });
    expect((await store.bulkJobs.inTeam('T2').start(forged.job.id, 'U_REQ', 'a')).won).toBe(false);
    expect((await jobs().get(original.id))?.retriedAs).toBeUndefined();
  });
});
