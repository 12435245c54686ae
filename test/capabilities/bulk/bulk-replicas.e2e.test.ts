import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningApp } from '../../kit/running-app.js';
import { useFakes } from '../../kit/fakes.js';
import { expectNoRejectedSlackCalls } from '../../kit/slack-checks.js';
import { TEST_DATABASE_URL, postgresDatabase, type TestDatabase } from '../../kit/store-engines.js';
import { csvRows, ended, linkCsv, previewOf, start } from './bulk-kit.js';

/** Two processes on one PostgreSQL working the same job: rows are claimed with FOR UPDATE SKIP LOCKED. */
describe.runIf(TEST_DATABASE_URL)('bulk create: two processes on one PostgreSQL', () => {
  const fakes = useFakes();
  let db: TestDatabase;
  let replicas: RunningApp[] = [];

  beforeAll(async () => {
    db = await postgresDatabase();
    const env = { DATABASE_URL: db.databaseUrl, MINT_API_TIMEOUT_MS: '2000', BULK_CONCURRENCY: '2' };
    replicas = await Promise.all([1, 2].map(() => fakes.startProcess('http', { env })));
  }, 60_000);
  afterAll(async () => {
    await Promise.all(replicas.map((r) => r.stop()));
    await db?.drop();
  });

  it('shares one job between them: every row sent once, by one or the other, one results file', async () => {
    const [a, b] = replicas as [RunningApp, RunningApp];
    fakes.mint.latencyMs = 100;
    const preview = await previewOf(a, fakes.slack, linkCsv(60), { bulk_nft_id: 'nft-r' });
    const started = await start(a, fakes.slack, preview);
    const { results } = await ended(fakes.slack, started, 30_000);
    await Promise.all([a.waitForIdle(), b.waitForIdle()]);

    const emails = fakes.mint.requestsTo('create_link').map((r) => (r.body as { email: string }).email);
    expect(emails).toHaveLength(60);
    expect(new Set(emails).size).toBe(60);
    expect(fakes.mint.peakInFlight).toBeLessThanOrEqual(2); // the workspace's 2, both processes together
    expect(
      csvRows(results)
        .slice(1)
        .map((r) => r[2]),
    ).toEqual(Array(60).fill('created'));
    expect(fakes.slack.uploadsTo(started.channel).filter((u) => u.filename.includes(started.jobId))).toHaveLength(1);

    const store = a.openStore();
    try {
      const rows = await store.bulkJobs.rows(started.jobId, { limit: 100 });
      expect(new Set(rows.map((r) => r.claimedBy)).size).toBe(2); // both processes sent rows
    } finally {
      await store.close();
    }
    const updates = fakes.slack.callsTo('chat.update').filter((c) => c.params.ts === started.ts);
    const gaps = updates.slice(1).map((u, i) => u.at - (updates[i]?.at ?? 0));
    // The 2 s are timed by the database's clock when an update is claimed; each then reaches Slack after a call
    // whose own time varies (two processes on two busy cores: tens to a few hundred ms). Without the throttle the
    // two processes' 500 ms ticks would update far more often than this.
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(1_600);
    expectNoRejectedSlackCalls(fakes.slack);
  }, 60_000);
});
