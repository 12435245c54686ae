import { beforeEach, expect, it } from 'vitest';
import type { NewBulkJob, NewBulkRow } from '../../../src/platform/store/bulk-jobs/jobs.js';
import type { HistoryQuery } from '../../../src/platform/store/history/search.js';
import { searchWords } from '../../../src/platform/store/history/entry.js';
import type { Store } from '../../../src/platform/store/store.js';
import { describeEachEngine, useMigratedStore } from '../../kit/store-engines.js';

/*
 * What bulk jobs give History: each link (or wallet) a job made is a History row of its own, written when its row
 * is settled done, in the same transaction, once; and a page of jobs' states and counts read in one query.
 */

const EVERYTHING = { everything: true } as const;

/** The request of the i-th link row (its row number i + 2). */
const linkRequest = (i: number) => ({
  email: `u${i}@example.com`,
  nftId: 'nft-spring',
  customerId: [`cus_${i}`],
  walletOptions: 'CUSTODIAL',
  isActive: true,
});
const linkRows = (n: number): NewBulkRow[] =>
  Array.from({ length: n }, (_, i) => ({ rowNumber: i + 2, cells: [`u${i}@example.com`], request: linkRequest(i) }));

describeEachEngine('bulk jobs in History', (_engine, create) => {
  const migrated = useMigratedStore(create);
  let store: Store;
  beforeEach(() => ({ store } = migrated));

  const job: Omit<NewBulkJob, 'rows'> = {
    teamId: 'T1',
    requesterId: 'U_ANN',
    kind: 'links',
    sourceName: 'people.csv',
    columns: ['email'],
    defaults: { nftId: 'nft-spring' },
  };
  /** A job started by its requester, every row claimed by worker `w`. */
  async function claimedJob(input: Omit<NewBulkJob, 'rows'>, rows: NewBulkRow[]) {
    const { job: draft } = await store.bulkJobs.createDraft({ ...input, rows });
    const started = await store.bulkJobs.start(draft.id, input.requesterId, 'audit-1');
    if (!started.won) throw new Error('not started');
    await store.bulkJobs.claim(draft.id, 'w', rows.length);
    return draft.id;
  }
  /** What the worker hands when a link row is done: the request it sent (row `rowNumber` of linkRows). */
  const linkMade = (rowNumber: number) => ({ kind: 'link', link: linkRequest(rowNumber - 2) }) as const;
  const page = (query: Partial<HistoryQuery> = {}) =>
    store.history.page({ teamId: 'T1', viewer: EVERYTHING, limit: 10, ...query });
  const found = async (typed: string) => (await page({ words: searchWords(typed) })).items.map((item) => item.id);

  it('keeps each link a job made as a row of its own, made by its starter with the job, found by its words', async () => {
    const jobId = await claimedJob(job, linkRows(3));
    const url = 'https://mint.example/l/lnk_bulk1';
    expect(await store.bulkJobs.settle(jobId, 2, 'w', { status: 'done', resultUrl: url, made: linkMade(2) })).toBe(
      true,
    );
    await store.bulkJobs.settle(jobId, 3, 'w', { status: 'failed', error: 'HTTP 400' });
    await store.bulkJobs.settle(jobId, 4, 'w', { status: 'unknown', error: 'no answer' });

    const { items } = await page();
    expect(items).toHaveLength(1); // failed and unknown rows made nothing that History could name
    expect(items[0]).toMatchObject({
      id: `${jobId}/2`,
      kind: 'link',
      actorId: 'U_ANN',
      how: 'bulk',
      outcome: 'succeeded',
      nftId: 'nft-spring',
      email: 'u0@example.com',
      customerIds: ['cus_0'],
      url,
      jobId,
      facts: { source: 'people.csv', row: 2, walletOptions: 'CUSTODIAL', active: true },
    });
    for (const words of ['U0@Example.com', 'cus_0 NFT-spring', url, 'lnk_bulk1', jobId])
      expect(await found(words)).toEqual([`${jobId}/2`]);
    // Ann sees it as hers; Bob does not; another workspace never.
    const own = (userId: string) => page({ viewer: { everything: false, userId, audiences: [`user:${userId}`] } });
    expect((await own('U_ANN')).items).toHaveLength(1);
    expect((await own('U_BOB')).items).toHaveLength(0);
    expect((await page({ teamId: 'T2' })).items).toHaveLength(0);
  });

  it('writes the row once: a row settled again, by any worker, adds nothing', async () => {
    const jobId = await claimedJob(job, linkRows(1));
    const done = { status: 'done', resultUrl: 'https://mint.example/l/lnk_once', made: linkMade(2) } as const;
    const settled = await Promise.all([
      store.bulkJobs.settle(jobId, 2, 'w', done),
      store.bulkJobs.settle(jobId, 2, 'w', done),
      store.bulkJobs.settle(jobId, 2, 'other', done),
    ]);
    expect(settled.filter(Boolean)).toHaveLength(1);
    expect((await page()).items.map((item) => item.id)).toEqual([`${jobId}/2`]);
    expect(await found('lnk_once')).toEqual([`${jobId}/2`]);
  });

  it('keeps each wallet a wallets job made, with its customer', async () => {
    const rows: NewBulkRow[] = [
      { rowNumber: 2, cells: ['cus_w1'], request: { userId: 'cus_w1' } },
      { rowNumber: 3, cells: [''], request: {} },
    ];
    const jobId = await claimedJob({ ...job, kind: 'wallets', sourceName: 'wallets.csv' }, rows);
    await store.bulkJobs.settle(jobId, 2, 'w', { status: 'done', made: { kind: 'wallet', customerId: 'cus_w1' } });
    await store.bulkJobs.settle(jobId, 3, 'w', { status: 'done', made: { kind: 'wallet', customerId: undefined } });
    const { items } = await page({ kind: 'wallet' });
    expect(items.map((item) => [item.id, item.customerIds, item.how, item.jobId])).toEqual([
      [`${jobId}/3`, [], 'bulk', jobId],
      [`${jobId}/2`, ['cus_w1'], 'bulk', jobId],
    ]);
    expect(await found('cus_w1')).toEqual([`${jobId}/2`]);
  });

  it('reads the state and counts of a page of jobs in one query, of its own workspace only', async () => {
    const running = await claimedJob(job, linkRows(4));
    await store.bulkJobs.settle(running, 2, 'w', {
      status: 'done',
      resultUrl: 'https://mint.example/l/a',
      made: linkMade(2),
    });
    await store.bulkJobs.settle(running, 3, 'w', { status: 'failed', error: 'HTTP 400' });
    const { job: draft } = await store.bulkJobs.createDraft({
      ...job,
      rows: [...linkRows(2), { rowNumber: 9, cells: ['bad'], error: 'email: must be an email address' }],
    });
    const cancelled = await claimedJob(job, []);
    await store.bulkJobs.cancel(cancelled, 'U_ANN');
    const other = await claimedJob({ ...job, teamId: 'T2' }, linkRows(1));

    const summaries = await store.bulkJobs.inTeam('T1').summaries([running, draft.id, cancelled, other, 'BK-NONE']);
    expect(summaries.get(running)).toMatchObject({
      status: 'running',
      cancelled: false,
      counts: { done: 1, failed: 1, sending: 2, pending: 0 },
    });
    expect(summaries.get(draft.id)).toMatchObject({ status: 'draft', counts: { pending: 2, invalid: 1 } });
    expect(summaries.get(cancelled)).toMatchObject({ status: 'finishing', cancelled: true, counts: { done: 0 } });
    expect(summaries.has(other)).toBe(false);
    expect(summaries.has('BK-NONE')).toBe(false);
    expect((await store.bulkJobs.inTeam('T1').summaries([])).size).toBe(0);
  });
});
