/*
 * Customer deletion where the process is the point: a crash (SIGKILL) between the approval and the outcome, and
 * two processes on one PostgreSQL taking the approvals. Every other behaviour is in customer-deletion.test.ts.
 */
import { afterAll, afterEach, beforeAll, expect, it, vi } from 'vitest';
import { DELETIONS } from '../../../src/capabilities/deletions/actions.js';
import type { SlackDriver } from '../../kit/slack-driver.js';
import { useFakes } from '../../kit/fakes.js';
import { runSql } from '../../kit/raw-sql.js';
import { expectNoRejectedSlackCalls } from '../../kit/slack-checks.js';
import { TEST_DATABASE_URL, describeEachEngine, type TestDatabase } from '../../kit/store-engines.js';
import { BOB, CAROL, Deletion, GROUP, buttonsOf } from './customer-deletion-flow.js';

describeEachEngine('customer deletion across processes', (engine, create) => {
  const fakes = useFakes();
  let db: TestDatabase;
  let flow: Deletion;
  let app: SlackDriver;
  const extraApps: SlackDriver[] = [];

  beforeAll(async () => {
    fakes.slack.userGroups.set(GROUP, [CAROL, 'U0DAVE004']);
    db = await create();
    flow = new Deletion(fakes, db);
    app = await flow.start();
  });
  afterAll(async () => {
    await app?.stop();
    await db?.drop();
  });
  afterEach(async () => {
    expectNoRejectedSlackCalls(fakes.slack);
    for (const extra of extraApps.splice(0)) await extra.stop('SIGKILL');
  });

  it('recovers a crash between the approval and the outcome: marked for attention, then retried', async () => {
    const crashing = await flow.startProcess();
    extraApps.push(crashing);
    const { id, ts } = await flow.request(crashing, ['cus_crash']);
    fakes.mint.failNext('delete_customers', { mode: 'hang' });
    const view = await flow.openDecision(crashing, ts, 'approve', BOB);
    await crashing.submitView(view, {}, BOB);
    // The Mint service's side: the fake Slack's waits wake on Slack calls only.
    await vi.waitFor(() => expect(flow.patches()).toHaveLength(1), { timeout: 3_000, interval: 5 });
    expect(await crashing.stop('SIGKILL')).toBeNull();
    expect(await flow.status(app, id)).toBe('running');
    // Time passes beyond the run's lease (the longest a run can take), rather than being waited out.
    await runSql(db.databaseUrl, 'update deletion_requests set run_started_at = ? where id = ?', [
      '2020-01-01T00:00:00.000Z',
      id,
    ]);

    const restarted = await flow.start();
    extraApps.push(restarted);
    const interrupted = await flow.waitForStatus(ts, '*the app stopped during the deletion*');
    expect(buttonsOf(interrupted)).toContain(DELETIONS.buttons.retry.actionId);
    expect(buttonsOf(interrupted)).not.toContain(DELETIONS.buttons.approve.actionId);
    await flow.click(restarted, ts, DELETIONS.buttons.retry.actionId, CAROL);
    await flow.waitForStatus(ts, '*Deleted* 1 customer');
    expect(flow.patches()).toHaveLength(2);
    expect(await flow.status(app, id)).toBe('done');
  }, 30_000);

  it.runIf(engine === 'postgres' && TEST_DATABASE_URL)(
    'runs one deletion when two app processes on one PostgreSQL get the approvals',
    async () => {
      const other = await flow.startProcess();
      extraApps.push(other);
      const { ts } = await flow.request(app, ['cus_two_processes']);
      const bobView = await flow.openDecision(app, ts, 'approve', BOB);
      const carolView = await flow.openDecision(other, ts, 'approve', CAROL);
      await Promise.all([app.submitView(bobView, {}, BOB), other.submitView(carolView, {}, CAROL)]);
      await flow.waitForStatus(ts, '*Deleted* 1 customer');
      await Promise.all([app.waitForIdle(), other.waitForIdle()]);
      expect(flow.patches()).toHaveLength(1);
    },
  );
});
