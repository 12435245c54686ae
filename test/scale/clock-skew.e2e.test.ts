import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppProcess } from '../kit/app-process.js';
import { DeletionFlow } from '../kit/deletion-flow.js';
import { useFakes } from '../kit/fakes.js';
import { expectNoRejectedSlackCalls, textOf } from '../kit/slack-checks.js';
import { TEST_DATABASE_URL, postgresDatabase, type TestDatabase } from '../kit/store-engines.js';
import { csvRows, ended, linkCsv, previewOf, start } from '../capabilities/bulk/bulk-kit.js';

const APPROVAL = 'C0APPROVE';
const APPROVER = 'U0APPROV1';
const REQUESTER = 'U0ALICE01';
const SHIFT_CLOCK = fileURLToPath(new URL('../kit/shift-clock.mjs', import.meta.url));
/**
 * Each Mint call's budget: leases of 2 x 3 s + 2 s = 8 s, far below the two minutes between the clocks, and a
 * deletion sweep every 4 s (± 10 %). Twice the slowest answer below (1.5 s), so a loaded machine does not turn
 * one into a timeout.
 */
const MINT_TIMEOUT_MS = 3_000;
/**
 * Rows of the bulk job: enough for both replicas to send some (two at a time in all, the workspace's concurrency,
 * at the app's own pace), each looking for lost rows while the other's are in flight.
 */
const ROWS = 40;

/**
 * Two replicas on one PostgreSQL whose hosts' clocks disagree by two minutes: one runs 60 s ahead of the
 * database, the other 60 s behind (a preload shifts their `Date`). What one of them writes as the start of a
 * claim or a run, the other judges; both must use the database's clock for it, or the one ahead finds the
 * other's work stale while it is still going.
 */
describe.runIf(TEST_DATABASE_URL)('replicas whose clocks are 60 s ahead and 60 s behind', () => {
  const fakes = useFakes();
  const flow = new DeletionFlow(fakes, APPROVAL);
  let db: TestDatabase;
  let ahead: AppProcess;
  let behind: AppProcess;

  beforeAll(async () => {
    db = await postgresDatabase();
    const env = (shiftMs: number) => ({
      DATABASE_URL: db.databaseUrl,
      APPROVAL_CHANNEL_ID: APPROVAL,
      DELETION_APPROVERS: APPROVER,
      MINT_API_TIMEOUT_MS: String(MINT_TIMEOUT_MS),
      BULK_CONCURRENCY: '2',
      NODE_OPTIONS: `--import ${SHIFT_CLOCK}`,
      TEST_CLOCK_SHIFT_MS: String(shiftMs),
    });
    [ahead, behind] = await Promise.all([
      fakes.startProcess('http', { env: env(60_000) }),
      fakes.startProcess('http', { env: env(-60_000) }),
    ]);
  }, 60_000);
  afterAll(async () => {
    await Promise.all([ahead, behind].map((r) => r?.stop()));
    await db?.drop();
  });

  it('runs the preload: the replicas see clocks two minutes apart', async () => {
    const startedAt = (app: AppProcess) =>
      Date.parse(String(app.logLines.find((l) => l.msg?.startsWith('mintlink started'))?.time));
    expect(startedAt(ahead) - startedAt(behind)).toBeGreaterThan(100_000);
  });

  it('marks no bulk row unknown that was created, whichever replica sent it', async () => {
    fakes.mint.latencyMs = 300; // rows are in flight on both replicas while the other looks for stale ones
    const preview = await previewOf(behind, fakes.slack, linkCsv(ROWS), { bulk_nft_id: 'nft-skew' });
    const started = await start(behind, fakes.slack, preview);
    const { results } = await ended(fakes.slack, started, 40_000);
    await Promise.all([ahead.waitForIdle(), behind.waitForIdle()]);

    const emails = fakes.mint.requestsTo('create_link').map((r) => (r.body as { email: string }).email);
    expect(emails).toHaveLength(ROWS);
    expect(new Set(emails).size).toBe(ROWS);
    expect(
      csvRows(results)
        .slice(1)
        .map((r) => r[2]),
    ).toEqual(Array(ROWS).fill('created'));
    const store = ahead.openStore();
    try {
      const rows = await store.bulkJobs.rows(started.jobId, { limit: 100 });
      expect(rows.filter((r) => r.status !== 'done')).toEqual([]);
      expect(new Set(rows.map((r) => r.claimedBy)).size).toBe(2); // both replicas sent rows
    } finally {
      await store.close();
    }
    expect(ahead.logLines.filter((l) => String(l.msg).includes('marked unknown'))).toEqual([]);
    expectNoRejectedSlackCalls(fakes.slack);
  }, 90_000);

  it('marks no deletion interrupted while the replica behind runs it, and sends each PATCH once', async () => {
    // Each deletion takes 1.5 s; started 0.8 s apart, the six runs cover 5.5 s, more than the 4.4 s at most
    // between two sweeps of the replica ahead, so one of its sweeps happens while a run is under way.
    fakes.mint.latencyMs = 1_500;
    const requests = [];
    for (let i = 0; i < 6; i += 1) requests.push(await flow.request(ahead, [`cus_skew_${i}`], REQUESTER));
    const modals = [];
    for (const { ts } of requests) modals.push(await flow.openDecision(behind, ts, 'approve', APPROVER));
    const submissions = [];
    for (const modal of modals) {
      submissions.push(behind.submitView(modal, {}, APPROVER));
      await sleep(800);
    }
    await Promise.all(submissions);
    const ended = (ts: string) => /\*Deleted\*|stopped during the deletion/.test(textOf(flow.approvalMessage(ts)));
    for (const { ts } of requests) await fakes.slack.waitFor(() => ended(ts), 15_000, 'the end of a deletion');
    await Promise.all([ahead.waitForIdle(), behind.waitForIdle()]);
    expect(requests.map(({ ts }) => textOf(flow.approvalMessage(ts)).includes('*Deleted* 1 customer'))).toEqual(
      requests.map(() => true),
    );

    expect(flow.patches().map((p) => p.body)).toEqual(requests.map((_, i) => [`cus_skew_${i}`]));
    for (const { id } of requests) {
      expect((await flow.stored(ahead, id))?.status).toBe('done');
      // Audit entries carry their writer's time, so their order is not asserted here.
      expect((await flow.auditOf(ahead, id)).sort()).toEqual(
        [
          ['customers.delete.request', 'done', REQUESTER],
          ['customers.delete.approve', 'approved', APPROVER],
          ['customers.delete.run', 'succeeded', APPROVER],
        ].sort(),
      );
    }
    expect(ahead.logLines.filter((l) => String(l.msg).includes('interrupted'))).toEqual([]);
    expectNoRejectedSlackCalls(fakes.slack);
  }, 90_000);
});
