import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningApp } from '../kit/running-app.js';
import { DeletionFlow } from '../kit/deletion-flow.js';
import { useFakes } from '../kit/fakes.js';
import { expectNoRejectedSlackCalls } from '../kit/slack-checks.js';
import { TEST_DATABASE_URL, postgresDatabase, type TestDatabase } from '../kit/store-engines.js';

const APPROVAL = 'C0APPROVE';
const ALICE = 'U0ALICE01';
const APPROVERS = ['U0APPROV1', 'U0DAVE004', 'U0EVE0005'];

/**
 * A quorum of three on three replicas sharing one PostgreSQL: the three approvers' submissions arrive at the
 * same moment, each at another replica. Every approval must be counted and the deletion run exactly once.
 */
describe.runIf(TEST_DATABASE_URL)('quorum approvals arriving at three replicas at once', () => {
  const fakes = useFakes();
  const flow = new DeletionFlow(fakes, APPROVAL);
  let db: TestDatabase;
  let replicas: RunningApp[] = [];

  beforeAll(async () => {
    db = await postgresDatabase();
    const env = {
      DATABASE_URL: db.databaseUrl,
      APPROVAL_CHANNEL_ID: APPROVAL,
      DELETION_APPROVERS: APPROVERS.join(','),
      DELETION_QUORUM: '3',
    };
    replicas = await Promise.all([1, 2, 3].map(() => fakes.startProcess('http', { env })));
  }, 60_000);
  afterAll(async () => {
    await Promise.all(replicas.map((r) => r.stop()));
    await db?.drop();
  });

  it('counts all three concurrent approvals and deletes exactly once, round after round', async () => {
    const [a, b, c] = replicas as [RunningApp, RunningApp, RunningApp];
    for (let round = 1; round <= 3; round += 1) {
      const { id, ts } = await flow.request(a, [`cus_round${round}_a`, `cus_round${round}_b`], ALICE);
      const views: Array<ReturnType<typeof fakes.slack.lastOpenedView>> = [];
      for (const [i, replica] of [b, c, a].entries())
        views.push(await flow.openDecision(replica, ts, 'approve', APPROVERS[i]!));
      // Each submission to another replica than its click, all at once.
      await Promise.all([c, a, b].map((replica, i) => replica.submitView(views[i]!, {}, APPROVERS[i])));
      await flow.waitForStatus(ts, '*Deleted* 2 customers');
      await Promise.all(replicas.map((r) => r.waitForIdle()));

      expect(flow.patches().filter((p) => JSON.stringify(p.body).includes(`cus_round${round}_`))).toHaveLength(1);
      const stored = await flow.stored(a, id);
      expect([...(stored?.approverIds ?? [])].sort()).toEqual([...APPROVERS].sort());
      const audit = await flow.auditOf(a, id);
      expect(audit.map(([operation, outcome]) => `${operation} ${outcome}`)).toEqual([
        'customers.delete.request done',
        'customers.delete.approve approval 1 of 3',
        'customers.delete.approve approval 2 of 3',
        'customers.delete.approve approved',
        'customers.delete.run succeeded',
      ]);
      expect(audit.slice(1, 4).map(([, , actor]) => actor)).toEqual(stored?.approverIds);
      expect(audit[4]?.[2]).toBe(stored?.decidedBy); // the last approval needed ran the deletion
    }
    expect(flow.patches()).toHaveLength(3);
    expectNoRejectedSlackCalls(fakes.slack);
  });
});
