import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunningApp } from '../../kit/running-app.js';
import { useFakes } from '../../kit/fakes.js';
import { expectNoRejectedSlackCalls } from '../../kit/slack-checks.js';
import { csvRows, ended, linkCsv, previewOf, start } from './bulk-kit.js';

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

/* The app stopping in the middle of a job: killed, or stopped gracefully. (The Mint service's faults: bulk-mint-faults.test.ts.) */
describe('bulk create: faults', () => {
  const fakes = useFakes();
  const apps: RunningApp[] = [];
  afterEach(async () => {
    expectNoRejectedSlackCalls(fakes.slack);
    await Promise.all(apps.splice(0).map((a) => a.stop('SIGKILL')));
  });

  /** The app; as a process of its own where a crash is the point. */
  const startApp = async (env: Record<string, string> = {}, where: 'in-process' | 'process' = 'in-process') => {
    const options = { env: { MINT_API_TIMEOUT_MS: '800', BULK_CONCURRENCY: '2', ...env } };
    const app = await (where === 'process' ? fakes.startProcess('http', options) : fakes.startApp('http', options));
    apps.push(app);
    return app;
  };
  const job = async (app: RunningApp, rows: number) =>
    start(app, fakes.slack, await previewOf(app, fakes.slack, linkCsv(rows), { bulk_nft_id: 'nft-f' }));

  it('resumes after a crash in the middle on another process: sent rows never again, the lost ones unknown', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mintlink-bulk-restart-'));
    const env = { DATABASE_URL: `file:${join(dir, 'shared.sqlite')}` };
    const first = await startApp(env, 'process');
    fakes.mint.latencyMs = 300;
    const started = await job(first, 24);
    await fakes.slack.waitFor(() => fakes.mint.links.length >= 6, 10_000, 'some rows done');
    // The crash comes while a row is in flight: sent to the service, its answer not back yet (300 ms away).
    await fakes.slack.waitFor(
      () => fakes.mint.requestsTo('create_link').length > fakes.mint.links.length,
      10_000,
      'a row sent, its answer not back',
    );
    await first.stop('SIGKILL'); // no goodbye: rows being sent stay "sending"
    const sentBeforeCrash = fakes.mint.requestsTo('create_link').length;

    const second = await startApp(env);
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
    expect(sends.size).toBe(24 - unknownNeverSent.length);
    expect(rows.filter((r) => r[2] === 'created')).toHaveLength(24 - unknown.length);
    for (const row of unknown) expect(row[4]).toContain('outcome was not recorded');
    expect(sentBeforeCrash).toBeLessThan(24);
    await second.stop();
  }, 60_000);

  it('lets the rows under way finish on a graceful stop, and the next process sends the rest', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mintlink-bulk-stop-'));
    const env = { DATABASE_URL: `file:${join(dir, 'shared.sqlite')}` };
    const first = await startApp(env);
    fakes.mint.latencyMs = 300;
    const started = await job(first, 16);
    await fakes.slack.waitFor(() => fakes.mint.links.length >= 4, 10_000, 'some rows done');
    expect(await first.stop('SIGTERM')).toBe(0);
    const createdByFirst = fakes.mint.links.length;
    expect(createdByFirst).toBe(fakes.mint.requestsTo('create_link').length); // every row it sent was answered

    await startApp(env);
    const { results } = await ended(fakes.slack, started, 30_000);
    expect([...sendsByEmail(fakes).values()].every((n) => n === 1)).toBe(true);
    expect(
      csvRows(results)
        .slice(1)
        .map((r) => r[2]),
    ).toEqual(Array(16).fill('created'));
  }, 60_000);
});
