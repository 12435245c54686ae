import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DELETIONS } from '../../src/capabilities/deletions/actions.js';
import { REASON_BLOCK } from '../../src/capabilities/deletions/deletion-request-form.js';
import { DEMO_CONTRACT_ID } from '../../src/operator/mock-mint-api/demo-templates.js';
import type { RunningApp } from '../kit/running-app.js';
import { useFakes } from '../kit/fakes.js';
import { expectNoRejectedSlackCalls, textOf } from '../kit/slack-checks.js';
import type { PostedMessage } from '../kit/slack-payloads.js';
import { TEST_DATABASE_URL, postgresDatabase, type TestDatabase } from '../kit/store-engines.js';
import { TEMPLATES } from '../../src/capabilities/templates/actions.js';

const APPROVAL = 'C0APPROVE';
const APPROVERS = ['U0APPROV1', 'U0DAVE004', 'U0CAROL03'];

/** Three replicas in HTTP mode on one PostgreSQL, behind an imaginary load balancer that sends each request anywhere. */
describe.runIf(TEST_DATABASE_URL)('three replicas on one PostgreSQL', () => {
  const fakes = useFakes();
  let db: TestDatabase;
  let replicas: RunningApp[] = [];

  beforeAll(async () => {
    fakes.slack.userGroups.set('S0GROUP01', ['U0CAROL03']);
    db = await postgresDatabase();
    const env = {
      DATABASE_URL: db.databaseUrl,
      APPROVAL_CHANNEL_ID: APPROVAL,
      DELETION_APPROVERS: 'U0APPROV1,U0DAVE004,S0GROUP01',
    };
    replicas = await Promise.all([1, 2, 3].map(() => fakes.startProcess('http', { env })));
  }, 60_000);
  afterAll(async () => {
    await Promise.all(replicas.map((r) => r.stop()));
    await db?.drop();
  });

  it('gives exactly one deletion when approvals arrive at all three at once, and complete audit rows', async () => {
    const [a, b, c] = replicas as [RunningApp, RunningApp, RunningApp];
    for (const id of ['cus_r1', 'cus_r2']) fakes.mint.customers.add(id); // customers the Mint service has
    const { view } = await a.commandOpeningModal('delete cus_r1 cus_r2');
    await a.submitView(view, { [REASON_BLOCK]: 'replica drill' });
    const post = await fakes.slack.waitForCall('chat.postMessage', (call) => call.params.channel === APPROVAL);
    const ts = String(post.answer?.ts);
    const id = /DR-[A-Z0-9]{6}/.exec(textOf(post.params.blocks))?.[0] ?? '';

    // Each approver's click and submission is served by another replica.
    const views: Array<ReturnType<typeof fakes.slack.lastOpenedView>> = [];
    for (const [i, replica] of [b, c, a].entries()) {
      const opened = fakes.slack.callsTo('views.open').length;
      await replica.click(fakes.slack.message(APPROVAL, ts), DELETIONS.buttons.approve.actionId, APPROVERS[i]);
      await fakes.slack.waitFor(() => fakes.slack.callsTo('views.open').length > opened, 3_000, 'an approval modal');
      views.push(fakes.slack.lastOpenedView());
    }
    await Promise.all([c, a, b].map((replica, i) => replica.submitView(views[i]!, {}, APPROVERS[i])));
    await fakes.slack.waitFor(
      () => textOf(fakes.slack.message(APPROVAL, ts)).includes('*Deleted* 2 customers'),
      8_000,
      'the deletion',
    );
    await Promise.all([a, b, c].map((replica) => replica.waitForIdle()));
    expect(fakes.mint.requestsTo('delete_customers')).toHaveLength(1);

    const store = a.openStore();
    try {
      const rows = (await store.audit.list({ limit: 50 }))
        .filter((e) => JSON.stringify(e.inputs).includes(id))
        .reverse();
      expect(rows.map((e) => [e.operation, e.outcome])).toEqual([
        ['customers.delete.request', 'done'],
        ['customers.delete.approve', 'approved'],
        ['customers.delete.run', 'succeeded'],
      ]);
      expect(APPROVERS).toContain(rows[1]?.actorId);
      expect(rows[2]?.actorId).toBe(rows[1]?.actorId);
    } finally {
      await store.close();
    }
    expectNoRejectedSlackCalls(fakes.slack);
  });

  it('pages templates whichever replica serves each click', async () => {
    const [a, b, c] = replicas as [RunningApp, RunningApp, RunningApp];
    const { fields } = await a.command(`templates ${DEMO_CONTRACT_ID} 20`);
    const [first] = await fakes.slack.waitForResponse(fields.response_url ?? '');
    let message = first?.body as PostedMessage;
    const served: string[] = [];
    for (const [i, replica] of [b, c, a, b, c, a].entries()) {
      const url = await replica.click(message, TEMPLATES.buttons.next.actionId);
      const [, page] = await fakes.slack.waitForResponse(url, 2);
      message = page?.body as PostedMessage;
      served.push(fakes.mint.requestsTo('list_templates').at(-1)?.url ?? '');
      expect(textOf(message.blocks?.[1])).toContain(`${(i + 1) * 20 + 1}–${Math.min(123, (i + 2) * 20)} of 123`);
    }
    expect(served).toEqual(
      [20, 40, 60, 80, 100, 120].map((o) => `/v1/nft/template/${DEMO_CONTRACT_ID}?offset=${o}&limit=20&orderBy=desc`),
    );
    expect(JSON.stringify(message.blocks)).not.toContain(TEMPLATES.buttons.next.actionId);
  });
});

describe.runIf(TEST_DATABASE_URL)('the same submission delivered to two replicas', () => {
  const fakes = useFakes();
  let db: TestDatabase;
  let replicas: RunningApp[] = [];

  beforeAll(async () => {
    db = await postgresDatabase();
    const env = { DATABASE_URL: db.databaseUrl, APPROVAL_CHANNEL_ID: APPROVAL, DELETION_APPROVERS: 'U0APPROV1' };
    replicas = await Promise.all([1, 2].map(() => fakes.startProcess('http', { env })));
  }, 60_000);
  afterAll(async () => {
    await Promise.all(replicas.map((r) => r.stop()));
    await db?.drop();
  });

  it('creates one link and one deletion request, however many times and wherever it arrives', async () => {
    const [a, b] = replicas as [RunningApp, RunningApp];
    const { view: linkForm } = await a.commandOpeningModal('link');
    await Promise.all([a, b, a].map((r) => r.submitView(linkForm, { nft_id: 'nft-twice' })));
    await Promise.all([a.waitForIdle(), b.waitForIdle()]);
    expect(fakes.mint.requestsTo('create_link')).toHaveLength(1);
    expect(fakes.slack.callsTo('views.update').filter((c) => c.params.view_id === linkForm.id)).toHaveLength(1);

    const { view: deletionForm } = await b.commandOpeningModal('delete cus_twice');
    await Promise.all([a, b].map((r) => r.submitView(deletionForm, { [REASON_BLOCK]: 'duplicate delivery' })));
    await Promise.all([a.waitForIdle(), b.waitForIdle()]);
    const posted = fakes.slack.callsTo('chat.postMessage').filter((c) => c.params.channel === APPROVAL);
    expect(posted).toHaveLength(1);
    const store = a.openStore();
    try {
      expect(await store.deletionRequests.count({ statuses: ['pending'] })).toBe(1);
    } finally {
      await store.close();
    }
  });
});
