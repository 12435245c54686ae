import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIELDS } from '../../../src/capabilities/settings/settings-form.js';
import { DeletionFlow } from '../../kit/deletion-flow.js';
import { useFakes } from '../../kit/fakes.js';
import type { RunningApp } from '../../kit/running-app.js';
import { SettingsFlow } from '../../kit/settings-flow.js';
import { expectNoRejectedSlackCalls, textOf } from '../../kit/slack-checks.js';
import { TEST_DATABASE_URL, postgresDatabase, type TestDatabase } from '../../kit/store-engines.js';

const APPROVAL = 'C0APPROVE';
const ADMIN = 'U0ADMIN01';
const ADMIN2 = 'U0ADMIN02';
const ALICE = 'U0ALICE01';
const BOB = 'U0BOB0001';
const DAVE = 'U0DAVE004';

/** Two replicas (processes, as `npm start` runs them) sharing one PostgreSQL. */
describe.runIf(TEST_DATABASE_URL)('settings on two replicas sharing PostgreSQL', () => {
  const fakes = useFakes();
  const settings = new SettingsFlow(fakes);
  const flow = new DeletionFlow(fakes, APPROVAL);
  let db: TestDatabase;
  let replicas: RunningApp[] = [];

  beforeAll(async () => {
    db = await postgresDatabase();
    const env = {
      DATABASE_URL: db.databaseUrl,
      APPROVAL_CHANNEL_ID: APPROVAL,
      DELETION_APPROVERS: `${BOB},${DAVE}`,
      SETTINGS_ADMINS: `${ADMIN},${ADMIN2}`,
    };
    replicas = await Promise.all([1, 2].map(() => fakes.startProcess('http', { env })));
  }, 60_000);
  afterAll(async () => {
    await Promise.all(replicas.map((r) => r.stop()));
    await db?.drop();
  });

  it('a change saved on one replica is in force on the other within 5 s, without a restart', async () => {
    const [a, b] = replicas as [RunningApp, RunningApp];
    const form = await settings.open(a, ADMIN);
    const saved = await settings.save(a, form, { [FIELDS.quorum]: '2' }, ADMIN);
    expect(textOf(saved)).toContain('*Saved.*');
    const savedAt = Date.now();

    // Replica b's next request needs two approvals, within 5 s of the save.
    let needs = 0;
    while (needs !== 2) {
      const { id } = await flow.request(b, [`cus_r${Date.now()}`], ALICE);
      needs = (await flow.stored(b, id))?.approvalsNeeded ?? 0;
      if (needs !== 2) expect(Date.now() - savedAt).toBeLessThan(5_000);
    }
    expect(Date.now() - savedAt).toBeLessThan(5_000);
    // And its form opens with the new version.
    expect((await settings.open(b, ADMIN2)).private_metadata).toBe(JSON.stringify({ version: 1 }));
    expectNoRejectedSlackCalls(fakes.slack);
  });

  it('two admins saving at once on different replicas: one save, one "changed meanwhile"', async () => {
    const [a, b] = replicas as [RunningApp, RunningApp];
    const first = await settings.open(a, ADMIN);
    const second = await settings.open(b, ADMIN2);
    expect(first.private_metadata).toBe(second.private_metadata);
    const acks = await Promise.all([
      settings.save(a, first, { [FIELDS.ttlHours]: '20' }, ADMIN),
      settings.save(b, second, { [FIELDS.remindHours]: '2' }, ADMIN2),
    ]);
    const texts = acks.map((ack) => textOf(ack));
    expect(texts.filter((t) => t.includes('*Saved.*'))).toHaveLength(1);
    expect(texts.filter((t) => t.includes('*The settings changed meanwhile:*'))).toHaveLength(1);
    const stored = await settings.stored(a);
    expect(stored?.version).toBe(2); // version 1 from the first test, then exactly one more save
    // Only the winner's setting was written: the loser's was not silently merged or overwritten.
    const winner = texts.findIndex((t) => t.includes('*Saved.*'));
    expect(Object.keys(stored?.settings ?? {}).sort()).toEqual(
      winner === 0 ? ['quorum', 'requestTtlHours'] : ['quorum', 'remindAfterHours'],
    );
    expect((await settings.audit(a)).filter((e) => e.outcome === 'succeeded')).toHaveLength(2);
  });
});
