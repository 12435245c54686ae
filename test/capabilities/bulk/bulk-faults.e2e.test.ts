import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ListenerApp } from '../../kit/listener-app.js';
import type { RunningApp } from '../../kit/running-app.js';
import { useFakes } from '../../kit/fakes.js';
import { expectNoRejectedSlackCalls } from '../../kit/slack-checks.js';
import { QUICK_BULK_PACE, csvRows, ended, holdMintAnswers, linkCsv, previewOf, start } from './bulk-kit.js';

/** How many times the mock service was asked to create a link for each email. */
function sendsByEmail(fakes: ReturnType<typeof useFakes>): Map<string, number> {
  const counts = new Map<string, number>();
  for (const r of fakes.mint.requestsTo('create_link')) {
    const email = String((r.body as { email?: string }).email);
    counts.set(email, (counts.get(email) ?? 0) + 1);
  }
  return counts;
}

function emailsIn(fakes: ReturnType<typeof useFakes>): string[] {
  return fakes.mint.requestsTo('create_link').map((r) => String((r.body as { email?: string }).email));
}

/*
 * The app stopping in the middle of a job: killed (a process of its own, the point), or stopped gracefully; the
 * app that takes the job over runs in the test's process at the quick pace. (The Mint service's faults:
 * bulk-mint-faults.test.ts.)
 */
describe('bulk create: faults', () => {
  const fakes = useFakes();
  const apps: Array<RunningApp | ListenerApp> = [];
  afterEach(async () => {
    expectNoRejectedSlackCalls(fakes.slack);
    await Promise.all(apps.splice(0).map((a) => a.stop('SIGKILL')));
  });

  /**
   * A row sent by a process that is gone is taken as lost after twice the Mint budget and 2 s (5 s here): short
   * enough not to wait long, long enough that no call of the app that takes over runs out of it on a loaded machine.
   */
  const settings = (databaseUrl: string) => ({
    MINT_API_TIMEOUT_MS: '1500',
    BULK_CONCURRENCY: '2',
    DATABASE_URL: databaseUrl,
  });
  /** The app as a process of its own, where a crash is the point. */
  const startProcess = async (databaseUrl: string) => {
    const app = await fakes.startProcess('http', { env: settings(databaseUrl) });
    apps.push(app);
    return app;
  };
  /** The app in the test's process (the fast tier), at the quick pace. */
  const startApp = async (databaseUrl: string) => {
    const app = await fakes.startListenerApp({ env: settings(databaseUrl), bulkPace: QUICK_BULK_PACE });
    apps.push(app);
    return app;
  };
  const job = async (app: RunningApp | ListenerApp, rows: number) =>
    start(app, fakes.slack, await previewOf(app, fakes.slack, linkCsv(rows), { bulk_nft_id: 'nft-f' }));

  it('resumes after a crash in the middle on another process: sent rows never again, the lost ones unknown', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mintlink-bulk-restart-'));
    const databaseUrl = `file:${join(dir, 'shared.sqlite')}`;
    const first = await startProcess(databaseUrl);
    fakes.mint.latencyMs = 50;
    const started = await job(first, 12);
    await fakes.slack.waitFor(() => fakes.mint.links.length >= 4, 10_000, 'some rows done');
    // The crash comes while a row is in flight: sent to the service, its answer held back from then on.
    const answer = holdMintAnswers(fakes.mint);
    await fakes.slack.waitFor(
      () => fakes.mint.requestsTo('create_link').length > fakes.mint.links.length,
      10_000,
      'a row sent, its answer not back',
    );
    await first.stop('SIGKILL'); // no goodbye: rows being sent stay "sending"
    const sentBeforeCrash = fakes.mint.requestsTo('create_link').length;
    answer(); // to a process that is gone
    fakes.mint.latencyMs = 0;

    const second = await startApp(databaseUrl);
    const { results } = await ended(fakes.slack, started, 30_000);
    const sends = sendsByEmail(fakes);
    expect([...sends.values()].every((n) => n === 1)).toBe(true); // no row sent twice
    const rows = csvRows(results).slice(1);
    const unknown = rows.filter((r) => r[2] === 'maybe created');
    // The rows in flight at the crash were claimed but never settled: unknown, never sent again. Most had reached
    // the service; one the process had claimed but not yet sent when it was killed never reaches it.
    const afterCrash = new Set(emailsIn(fakes).slice(sentBeforeCrash));
    expect(unknown.length).toBeGreaterThanOrEqual(1);
    expect(unknown.length).toBeLessThanOrEqual(2); // BULK_CONCURRENCY
    for (const row of unknown) expect(afterCrash.has(String(row[1]))).toBe(false);
    const unknownNeverSent = unknown.filter((row) => !sends.has(String(row[1])));
    expect(sends.size).toBe(12 - unknownNeverSent.length);
    expect(rows.filter((r) => r[2] === 'created')).toHaveLength(12 - unknown.length);
    for (const row of unknown) expect(row[4]).toContain('outcome was not recorded');
    expect(sentBeforeCrash).toBeLessThan(12);
    await second.stop();
  }, 60_000);

  it('lets the rows under way finish on a graceful stop, and the next process sends the rest', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mintlink-bulk-stop-'));
    const databaseUrl = `file:${join(dir, 'shared.sqlite')}`;
    const first = await startApp(databaseUrl);
    // The first rows stay at the service until the stop has begun: the stop waits for them.
    const answer = holdMintAnswers(fakes.mint);
    const started = await job(first, 8);
    await fakes.slack.waitFor(() => fakes.mint.requestsTo('create_link').length === 2, 10_000, 'rows under way');
    const stopped = first.stop('SIGTERM');
    await first.waitForLog((line) => line.msg === 'shutting down');
    answer();
    expect(await stopped).toBe(0);
    const createdByFirst = fakes.mint.links.length;
    expect(createdByFirst).toBe(2);
    expect(createdByFirst).toBe(fakes.mint.requestsTo('create_link').length); // every row it sent was answered

    await startApp(databaseUrl);
    const { results } = await ended(fakes.slack, started, 30_000);
    expect([...sendsByEmail(fakes).values()].every((n) => n === 1)).toBe(true);
    expect(
      csvRows(results)
        .slice(1)
        .map((r) => r[2]),
    ).toEqual(Array(8).fill('created'));
  }, 60_000);
});
