import { afterEach, describe, expect, it } from 'vitest';
import type { ListenerApp } from '../../kit/listener-app.js';
import { useFakes } from '../../kit/fakes.js';
import { expectNoRejectedSlackCalls, textOf } from '../../kit/slack-checks.js';
import { QUICK_BULK_PACE, csvRows, ended, holdMintAnswers, linkCsv, previewOf, progress, start } from './bulk-kit.js';

/** How many times the mock service was asked to create a link for each email. */
function sendsByEmail(fakes: ReturnType<typeof useFakes>): Map<string, number> {
  const counts = new Map<string, number>();
  for (const r of fakes.mint.requestsTo('create_link')) {
    const email = String((r.body as { email?: string }).email);
    counts.set(email, (counts.get(email) ?? 0) + 1);
  }
  return counts;
}

/* The Mint service rate limiting or down in the middle of a job. (The app stopping in the middle: bulk-faults.e2e.test.ts.) */
describe('bulk create: the Mint service’s faults', () => {
  const fakes = useFakes();
  const apps: ListenerApp[] = [];
  afterEach(async () => {
    expectNoRejectedSlackCalls(fakes.slack);
    await Promise.all(apps.splice(0).map((a) => a.stop()));
  });

  /**
   * The app, its circuit open for 1 s (10 s in the app) once five outages came in a row. Its Mint calls' time
   * budget is long enough for a loaded machine, but where a test is about a call that gets no answer.
   */
  const startApp = async (env: Record<string, string> = {}) => {
    const app = await fakes.startListenerApp({
      env: { MINT_API_TIMEOUT_MS: '30000', BULK_CONCURRENCY: '2', ...env },
      bulkPace: QUICK_BULK_PACE,
      mintBreaker: { halfOpenAfterMs: 1_000 },
    });
    apps.push(app);
    return app;
  };
  const job = async (app: ListenerApp, rows: number) =>
    start(app, fakes.slack, await previewOf(app, fakes.slack, linkCsv(rows), { bulk_nft_id: 'nft-f' }));

  it('leaves the last places of the work budget to interactive requests: none is turned away during a job', async () => {
    // Budget 8 (the least the configuration allows), BULK_CONCURRENCY 4: the worker takes a place only while
    // more than 4 are free, so 4 are always left to the commands.
    const app = await startApp({ MAX_WORK_IN_FLIGHT: '8', BULK_CONCURRENCY: '4' });
    // The service holds its answers: the job keeps as many rows in flight as it may while the commands come.
    const answer = holdMintAnswers(fakes.mint);
    const started = await job(app, 12);
    await fakes.slack.waitFor(() => fakes.mint.inFlight === 4, 5_000, 'the job to send four rows at once');
    const acks: Array<Record<string, unknown> | undefined> = [];
    for (let burst = 0; burst < 5; burst += 1) {
      const answers = await Promise.all([1, 2, 3].map(() => app.command('help')));
      acks.push(...answers.map((a) => a.ack));
    }
    expect(fakes.mint.inFlight).toBe(4); // the job held its places all the while
    answer();
    await ended(fakes.slack, started);
    expect(acks).toHaveLength(15);
    expect(acks.filter((a) => JSON.stringify(a).includes('busy'))).toEqual([]);
    expect(fakes.mint.peakInFlight).toBe(4);
    expect(fakes.mint.links).toHaveLength(12);
  }, 30_000);

  it('waits out a 429 with Retry-After, then sends the refused row: every row created once', async () => {
    const app = await startApp({ BULK_CONCURRENCY: '1' }); // one at a time: the row after the 429 is the refused one
    // 1 s: longer than the gap a new message waits for its first update, which shows the wait.
    fakes.mint.failNext('create_link', { mode: 'status', status: 429, headers: { 'retry-after': '1' } }, 1);
    const started = await job(app, 5);
    await fakes.slack.waitFor(
      () => textOf(progress(fakes.slack, started).blocks).includes('*Waiting*: the Mint service asked the app to wait'),
      5_000,
      'the waiting note',
    );
    const { results } = await ended(fakes.slack, started);
    const sends = sendsByEmail(fakes);
    expect(sends.size).toBe(5);
    // One row was refused with 429 and sent again: 6 requests, 5 links.
    expect(fakes.mint.requestsTo('create_link')).toHaveLength(6);
    expect(fakes.mint.links).toHaveLength(5);
    expect(
      csvRows(results)
        .slice(1)
        .every((r) => r[2] === 'created'),
    ).toBe(true);
    // While the service asked to wait, nothing was sent for 1 s: the refused row went again 1 s later, after
    // which the others followed without waiting again (a row's own turn, less than another second on a loaded
    // machine). (Both times are the mock's, on one clock.)
    const [refused, again, next] = fakes.mint.requestsTo('create_link');
    expect(again?.body).toEqual(refused?.body);
    expect((again?.at ?? 0) - (refused?.at ?? 0)).toBeGreaterThanOrEqual(950);
    expect((next?.at ?? 0) - (again?.at ?? 0)).toBeLessThan(950);
  }, 30_000);

  it('records rows answered with a bare 503 as unknown (a proxy may have forwarded them), waits while the circuit is open, then goes on: none sent twice', async () => {
    const app = await startApp({ BULK_CONCURRENCY: '1' }); // one at a time: the five 503s come in a row
    fakes.mint.failNext('create_link', { mode: 'status', status: 503 }, 5);
    const started = await job(app, 8);
    await fakes.slack.waitFor(
      () => textOf(progress(fakes.slack, started).blocks).includes('the Mint service is failing'),
      8_000,
      'the waiting note',
    );
    const { results, message } = await ended(fakes.slack, started, 30_000);
    expect([...sendsByEmail(fakes).values()]).toEqual(Array(8).fill(1)); // each row sent once, 503 or not
    expect(fakes.mint.links).toHaveLength(3);
    expect(textOf(message.blocks)).toContain('*3 created* · 0 failed · 5 maybe created');
    const rows = csvRows(results).slice(1);
    expect(rows.map((r) => r[2])).toEqual([...Array(5).fill('maybe created'), ...Array(3).fill('created')]);
    for (const row of rows.slice(0, 5)) {
      expect(row[4]).toBe(
        'The Mint service answered 503: Mock failure 503. It may have been created: check before sending it again.',
      );
    }
  }, 40_000);

  it('records what the service refused (400) as failed; a 408 or a 500 as unknown, never sending them again', async () => {
    const app = await startApp({ BULK_CONCURRENCY: '1' });
    fakes.mint.failNext('create_link', { mode: 'status', status: 400, body: { message: 'nftId unknown' } }, 1);
    fakes.mint.failNext('create_link', { mode: 'status', status: 408 }, 1);
    fakes.mint.failNext('create_link', { mode: 'status', status: 500 }, 1);
    const started = await job(app, 5);
    const { results, message } = await ended(fakes.slack, started, 20_000);
    expect(textOf(message.blocks)).toContain('*2 created* · 1 failed · 2 maybe created');
    expect(textOf(message.blocks)).toContain('check them before sending them again');
    const rows = csvRows(results);
    expect(rows[1]).toEqual(['2', 'u1@example.com', 'failed', '', 'The Mint service answered 400: nftId unknown']);
    expect(rows.slice(2, 4).map((r) => r[2])).toEqual(['maybe created', 'maybe created']);
    for (const row of rows.slice(2, 4))
      expect(row[4]).toContain('. It may have been created: check before sending it again.');
    expect(rows[2]?.[4]).toContain('The Mint service answered 408');
    expect(rows[3]?.[4]).toContain('The Mint service answered 500');
    expect([...sendsByEmail(fakes).values()]).toEqual(Array(5).fill(1));
  }, 30_000);

  it('records a row the service never answered as unknown, never sending it again', async () => {
    // An app of its own, whose time budget is short (800 ms): the hung row is its only Mint call.
    const app = await startApp({ BULK_CONCURRENCY: '1', MINT_API_TIMEOUT_MS: '800' });
    fakes.mint.failNext('create_link', { mode: 'hang' }, 1);
    const started = await job(app, 1);
    const { results, message } = await ended(fakes.slack, started, 20_000);
    expect(textOf(message.blocks)).toContain('*0 created* · 0 failed · 1 maybe created');
    expect(csvRows(results)[1]).toEqual([
      '2',
      'u1@example.com',
      'maybe created',
      '',
      'The Mint service did not answer within 0.8 s. It may have been created: check before sending it again.',
    ]);
    expect([...sendsByEmail(fakes).values()]).toEqual([1]);
  }, 30_000);
});
