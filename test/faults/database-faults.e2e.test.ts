import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DELETIONS } from '../../src/capabilities/deletions/actions.js';
import { REASON_BLOCK } from '../../src/capabilities/deletions/deletion-request-form.js';
import { LINK_BLOCKS } from '../../src/capabilities/links/link-form.js';
import type { RunningApp } from '../kit/running-app.js';
import { useFakes } from '../kit/fakes.js';
import { textOf } from '../kit/slack-checks.js';
import { TEST_DATABASE_URL, postgresDatabase, type TestDatabase } from '../kit/store-engines.js';
import { TcpProxy } from '../kit/tcp-proxy.js';

const APPROVER = 'U0APPROV1';
const env = (databaseUrl: string) => ({
  DATABASE_URL: databaseUrl,
  APPROVAL_CHANNEL_ID: 'C0APPROVE',
  DELETION_APPROVERS: APPROVER,
  MINT_API_TIMEOUT_MS: '800',
});

/**
 * PostgreSQL behind a proxy the test can cut: unreachable at start, or going away while the app runs.
 * /readyz says why, actions that need the database say so and change nothing, and the app recovers.
 */
describe.runIf(TEST_DATABASE_URL)('database faults (PostgreSQL)', () => {
  const fakes = useFakes();
  let db: TestDatabase;
  let proxy: TcpProxy;
  let app: RunningApp | undefined;

  beforeAll(async () => {
    db = await postgresDatabase();
    const target = new URL(TEST_DATABASE_URL ?? '');
    proxy = await new TcpProxy(target.hostname, Number(target.port || 5432)).restore();
  });
  afterEach(async () => {
    await app?.stop();
    app = undefined;
    await proxy.restore().catch(() => undefined); // back up for the next test (a no-op when it is)
  });
  afterAll(async () => {
    await proxy.cut();
    await db.drop();
  });

  const readyz = async (a: RunningApp) => {
    const res = await fetch(`${a.baseUrl}/readyz`);
    return { status: res.status, body: (await res.json()) as { status: string; reason?: string } };
  };
  const waitReady = async (a: RunningApp, ready: boolean, timeoutMs = 15_000) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const { status, body } = await readyz(a);
      if ((status === 200) === ready) return body;
      if (Date.now() > deadline) throw new Error(`readiness stayed ${JSON.stringify(body)}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  };

  it('unreachable at start: not ready, actions refused clearly, then everything works once it is back', async () => {
    await proxy.cut();
    // The migrations are tried again 1 s, 2 s, 4 s... after a failed start in the app; here from 100 ms on.
    app = await fakes.startApp('http', { env: env(proxy.rewrite(db.databaseUrl)), migrationRetryFirstWaitMs: 100 });
    expect(await readyz(app)).toEqual({
      status: 503,
      body: {
        status: 'not ready',
        reason: `database unreachable: nothing listens at 127.0.0.1:${proxy.port} (ECONNREFUSED)`,
      },
    });

    const { view } = await app.commandOpeningModal('link');
    await app.submitView(view, { [LINK_BLOCKS.nftId]: 'nft-no-db' });
    expect(textOf(await fakes.slack.viewUpdate(view.id))).toContain(
      'cannot record this in its audit log right now (database unavailable), so nothing was created',
    );
    expect(fakes.mint.requests).toEqual([]); // nothing is sent that cannot be recorded

    await proxy.restore();
    await waitReady(app, true);
    const again = await app.commandOpeningModal('link');
    await app.submitView(again.view, { [LINK_BLOCKS.nftId]: 'nft-db-back' });
    const created = await fakes.slack.waitForCall('views.update', (c) => c.params.view_id === again.view.id);
    expect(textOf(created.params.view)).toContain('Mint link created');
  }, 30_000);

  it('going away while running: not ready, a decision changes nothing and says why, then it works again', async () => {
    app = await fakes.startApp('http', { env: env(proxy.rewrite(db.databaseUrl)) });
    await waitReady(app, true);
    for (const id of ['cus_db_1', 'cus_db_2']) fakes.mint.customers.add(id); // customers the Mint service has
    const { view } = await app.commandOpeningModal('delete cus_db_1 cus_db_2');
    await app.submitView(view, { [REASON_BLOCK]: 'outage drill' });
    await fakes.slack.waitForCall(
      'views.update',
      (c) => c.params.view_id === view.id && textOf(c.params.view).includes('waiting for approval'),
    );
    const post = await fakes.slack.waitForCall('chat.postMessage', (c) => c.params.channel === 'C0APPROVE');
    const ts = String(post.answer?.ts);

    await proxy.cut();
    const down = await waitReady(app, false);
    expect(down.reason).toMatch(/^database unreachable: /);
    const url = await app.click(fakes.slack.message('C0APPROVE', ts), DELETIONS.buttons.approve.actionId, APPROVER);
    const [told] = await fakes.slack.waitForResponse(url, 1, 10_000);
    expect(told?.body).toMatchObject({
      response_type: 'ephemeral',
      text: expect.stringContaining('cannot reach its database right now, so nothing was changed'),
    });
    expect(fakes.slack.callsTo('views.open')).toHaveLength(1); // only the request form: no approval modal

    await proxy.restore();
    await waitReady(app, true);
    const store = app.openStore();
    try {
      const [request] = await store.deletionRequests.list();
      expect(request?.status).toBe('pending'); // nothing half-written
      expect((await store.audit.list({ operation: 'customers.delete.approve' })).length).toBe(0);
    } finally {
      await store.close();
    }
    const opened = fakes.slack.callsTo('views.open').length;
    await app.click(fakes.slack.message('C0APPROVE', ts), DELETIONS.buttons.approve.actionId, APPROVER);
    await fakes.slack.waitFor(() => fakes.slack.callsTo('views.open').length > opened, 5_000, 'the approval modal');
    await app.submitView(fakes.slack.lastOpenedView(), {}, APPROVER);
    await fakes.slack.waitFor(
      () => textOf(fakes.slack.message('C0APPROVE', ts)).includes('*Deleted* 2 customers'),
      5_000,
      'the deletion',
    );
    expect(fakes.mint.requestsTo('delete_customers')).toHaveLength(1);
  }, 40_000);

  it("Home's lists while it is away: the user is told, not shown an empty list", async () => {
    app = await fakes.startApp('http', { env: env(proxy.rewrite(db.databaseUrl)) });
    await waitReady(app, true);
    await proxy.cut();
    await waitReady(app, false);
    const home = {
      id: 'V0HOME001',
      type: 'home',
      blocks: [
        {
          type: 'actions',
          elements: [
            {
              type: 'button',
              action_id: DELETIONS.buttons.allApprovals.actionId,
              text: { type: 'plain_text', text: 'See all' },
            },
          ],
        },
      ],
    };
    await app.clickOnHome(home, DELETIONS.buttons.allApprovals.actionId, APPROVER);
    const told = await fakes.slack.waitForCall('chat.postMessage', (c) => c.params.channel === APPROVER, 10_000);
    expect(String(told.params.text)).toContain('cannot reach its database right now');
    expect(fakes.slack.callsTo('views.open')).toEqual([]);
  }, 30_000);
});
