import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DELETIONS } from '../../../src/capabilities/deletions/actions.js';
import type { ListenerApp } from '../../kit/listener-app.js';
import { DeletionFlow } from '../../kit/deletion-flow.js';
import { useFakes } from '../../kit/fakes.js';
import { runSql } from '../../kit/raw-sql.js';
import { expectNoRejectedSlackCalls, textOf } from '../../kit/slack-checks.js';
import { describeEachEngine, type TestDatabase } from '../../kit/store-engines.js';

const APPROVAL = 'C0APPROVE';
const ALICE = 'U0ALICE01'; // asks
const BOB = 'U0APPROV1'; // approver by id
const CAROL = 'U0CAROL03'; // approver by id
const DAVE = 'U0DAVE004'; // approver through the user group
const MALLORY = 'U0MALLORY'; // has a Home, has nothing to do with deletions
const GROUP = 'S0GROUP01';
const ENV = {
  APPROVAL_CHANNEL_ID: APPROVAL,
  DELETION_APPROVERS: `${BOB},${CAROL},${GROUP}`,
  DELETION_QUORUM: '2',
};

/*
 * Everyone who sees a deletion request on their Home sees its state as it is now, without opening Home again:
 * the requester (their requests waiting, and their activity, whose entry follows the request to its end), and
 * the approvers (the requests waiting for them). The audit log's entry of the asking ends as the request does.
 */
describeEachEngine('a deletion request on App Home', (_engine, create) => {
  const fakes = useFakes();
  const flow = new DeletionFlow(fakes, APPROVAL);
  let db: TestDatabase;
  let app: ListenerApp;

  beforeAll(async () => {
    fakes.slack.userGroups.set(GROUP, [DAVE]);
    db = await create();
    app = await fakes.startListenerApp({ env: { ...ENV, DATABASE_URL: db.databaseUrl } });
    // Everyone opens their Home once: from then on the app keeps it up to date.
    for (const user of [ALICE, BOB, CAROL, DAVE, MALLORY]) {
      await app.event({ type: 'app_home_opened', user, channel: `D${user.slice(1)}`, tab: 'home' });
      await fakes.slack.waitFor(() => published(user) > 0, 5_000, `the Home of ${user}`);
    }
  });
  afterAll(async () => {
    await app?.stop();
    await db?.drop();
  });
  afterEach(() => expectNoRejectedSlackCalls(fakes.slack));

  const published = (user: string) =>
    fakes.slack.callsTo('views.publish').filter((c) => c.params.user_id === user).length;
  const homeOf = (user: string) => textOf(fakes.slack.view(user));

  /** Waits, without opening it again, for `user`'s Home to satisfy `shows`. */
  async function homeShows(user: string, what: string, shows: (home: string) => boolean) {
    await fakes.slack.waitFor(() => shows(homeOf(user)), 6_000, `the Home of ${user} to show ${what}`);
  }
  const listed = (id: string) => (home: string) => home.includes(`*${id}*`);
  const notListed = (id: string) => (home: string) => !home.includes(`*${id}*`);
  const activity = (id: string, outcome: string) => (home: string) =>
    home.includes(`Requested a customer deletion ${id} · ${outcome}`);

  /** The outcome of the audit entry of the asking for request `id`. */
  async function askedOutcome(id: string) {
    return (await flow.auditOf(app, id)).find(([operation]) => operation === 'customers.delete.request')?.[1];
  }

  /** Alice asks; every approver's Home lists it, and hers shows it waiting. */
  async function ask(ids: string[]) {
    const asked = await flow.request(app, ids, ALICE);
    await homeShows(ALICE, 'her request waiting', (home) =>
      activity(asked.id, ':hourglass_flowing_sand: waiting for approval')(home),
    );
    for (const approver of [BOB, CAROL, DAVE]) await homeShows(approver, `${asked.id} waiting`, listed(asked.id));
    return asked;
  }

  async function reject(ts: string, user: string) {
    const view = await flow.openDecision(app, ts, 'reject', user);
    await app.submitView(view, {}, user);
  }

  it('approved by two and done: each approval and the outcome show on every Home at once', async () => {
    const { id, ts } = await ask(['cus_h1', 'cus_h2']);
    expect(await askedOutcome(id)).toBe('pending');

    await flow.approve(app, ts, BOB);
    await homeShows(CAROL, '1 of 2 approvals', (home) => home.includes(`*1 of 2 approvals*: <@${BOB}>`));
    await homeShows(DAVE, '1 of 2 approvals', (home) => home.includes(`*1 of 2 approvals*: <@${BOB}>`));
    await homeShows(ALICE, '1 of 2 approvals', (home) => home.includes(`*1 of 2 approvals*: <@${BOB}>`));
    await homeShows(BOB, 'no longer waiting for him', notListed(id));

    await flow.approve(app, ts, CAROL);
    await flow.waitForStatus(ts, '*Deleted* 2 customers');
    await homeShows(ALICE, 'done', activity(id, ':white_check_mark: done'));
    expect(notListed(id)(homeOf(ALICE))).toBe(true);
    for (const approver of [CAROL, DAVE]) await homeShows(approver, `${id} gone`, notListed(id));
    expect(await askedOutcome(id)).toBe('done');
  });

  it('rejected: the requester sees it rejected, the approvers no longer see it', async () => {
    const { id, ts } = await ask(['cus_h3']);
    await reject(ts, CAROL);
    await homeShows(ALICE, 'rejected', activity(id, ':no_entry_sign: rejected'));
    for (const approver of [BOB, DAVE]) await homeShows(approver, `${id} gone`, notListed(id));
    expect(await askedOutcome(id)).toBe('rejected');
  });

  it('cancelled by the requester', async () => {
    const { id } = await ask(['cus_h4']);
    const dm = await fakes.slack.waitForCall(
      'chat.postMessage',
      (c) => c.params.channel === ALICE && textOf(c.params.blocks).includes(id),
    );
    await app.click(
      fakes.slack.message(String(dm.answer?.channel), String(dm.answer?.ts)),
      DELETIONS.buttons.cancel.actionId,
      ALICE,
    );
    await homeShows(ALICE, 'cancelled', activity(id, ':heavy_multiplication_x: cancelled'));
    for (const approver of [BOB, CAROL, DAVE]) await homeShows(approver, `${id} gone`, notListed(id));
    expect(await askedOutcome(id)).toBe('cancelled');
  });

  it('expired without a decision', async () => {
    const { id } = await ask(['cus_h5']);
    await runSql(db.databaseUrl, 'update deletion_requests set expires_at = ? where id = ?', [
      '2020-01-01T00:00:00.000Z',
      id,
    ]);
    await homeShows(ALICE, 'expired', activity(id, ':hourglass: expired'));
    for (const approver of [BOB, CAROL, DAVE]) await homeShows(approver, `${id} gone`, notListed(id));
    expect(await askedOutcome(id)).toBe('expired');
  });

  it('approved, and the deletion failed', async () => {
    const { id, ts } = await ask(['cus_h6']);
    fakes.mint.failNext('delete_customers', { mode: 'status', status: 400, body: { message: 'unknown customer' } });
    await flow.approve(app, ts, BOB);
    await flow.approve(app, ts, DAVE);
    await flow.waitForStatus(ts, '*the deletion failed*');
    await homeShows(ALICE, 'failed', activity(id, ':x: failed'));
    // An approver no longer finds it waiting, but among the deletions that failed, to try again.
    await homeShows(CAROL, `${id} failed`, (home) => home.includes('*Deletions that failed*') && listed(id)(home));
    expect(homeOf(CAROL)).toContain(':x: The deletion failed');
    expect(await askedOutcome(id)).toBe('failed');
  });

  describe('whose Home is published', () => {
    it('only the Homes of the people the request concerns', async () => {
      await app.waitForIdle();
      const before = published(MALLORY);
      const { ts } = await ask(['cus_h7']);
      await reject(ts, BOB);
      await homeShows(ALICE, 'rejected', (home) => home.includes('· :no_entry_sign: rejected'));
      await app.waitForIdle();
      expect(published(MALLORY)).toBe(before);
    });
  });
});
