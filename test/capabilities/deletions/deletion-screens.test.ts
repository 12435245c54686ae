import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DELETIONS } from '../../../src/capabilities/deletions/actions.js';
import { REASON_BLOCK } from '../../../src/capabilities/deletions/deletion-request-form.js';
import { DeletionFlow } from '../../kit/deletion-flow.js';
import { messageShortcut, userContext } from '../../kit/slack-payloads.js';
import { useFakes, useListenerApp } from '../../kit/fakes.js';
import type { ListenerApp } from '../../kit/listener-app.js';
import { runSql } from '../../kit/raw-sql.js';
import { expectNoRejectedSlackCalls, textOf } from '../../kit/slack-checks.js';
import { ephemeralText, messageText } from '../../kit/screen-text.js';
import { expectScreen } from '../../kit/screens.js';
import { sqliteDatabase } from '../../kit/store-engines.js';

/*
 * What the people of a deletion request see, at every state it goes through: the message in the approval
 * channel, the requester's DM (edited in place) and the DMs they get at the end, the reminders in the
 * thread and the warning before expiry, and what a click on the approval message answers. Each is a golden
 * screen under test/screens/deletions/, read as the person who sees it would.
 */

const APPROVAL = 'C0APPROVE1'; // #deletion-approvals
const ALICE = 'U0ALICE01'; // asks
const BEN = 'U0BEN0001'; // approver
const CHLOE = 'U0CHLOE01'; // approver
const EVE = 'U0EVE0001'; // no rights
const ENV = {
  APPROVAL_CHANNEL_ID: APPROVAL,
  DELETION_APPROVERS: `${BEN},${CHLOE}`,
  DELETION_QUORUM: '2',
};
const IDS = ['cus_8f2a91', 'cus_3c77d0', 'cus_a1b2c3'];
const HOUR_MS = 3_600_000;
/** The moment someone reads a message sent by an app whose reminders' clock runs `hours` ahead. */
const hoursFromNow = (hours: number) => new Date(Date.now() + hours * HOUR_MS);

describe('deletion request screens', () => {
  const fakes = useFakes();
  const flow = new DeletionFlow(fakes, APPROVAL);
  let app: ListenerApp;
  /** How far the reminders' clock has moved on: a test moves it, and it is back after the test. */
  let hoursAhead = 0;

  beforeAll(async () => {
    // A file: the tests change the app's rows behind its back (runSql).
    app = await fakes.startListenerApp({
      env: { ...ENV, DATABASE_URL: sqliteDatabase().databaseUrl },
      remindersAheadMs: () => hoursAhead * HOUR_MS,
    });
  });
  afterAll(async () => {
    await app?.stop();
  });
  afterEach(() => {
    hoursAhead = 0;
    expectNoRejectedSlackCalls(fakes.slack);
  });

  /** The approval message as an approver sees it in the channel (`now`: when they look, for a later clock). */
  const inChannel = (name: string, message: unknown, now?: Date) =>
    expectScreen(
      name,
      messageText(message as Record<string, unknown>, { viewer: BEN, where: '#deletion-approvals', now }),
    );
  /** A DM of the app to the requester. */
  const inDm = (name: string, message: unknown, now?: Date) =>
    expectScreen(name, messageText(message as Record<string, unknown>, { viewer: ALICE, where: 'DM', now }));
  /** What only the person who clicked sees. */
  const toClicker = (name: string, body: unknown, viewer: string) =>
    expectScreen(name, ephemeralText(body as Record<string, unknown>, { viewer }));

  /** The requester's DM that says where the request waits (edited in place as it moves on). */
  async function requesterDm(id: string) {
    const call = await fakes.slack.waitForCall(
      'chat.postMessage',
      (c) =>
        c.params.channel === ALICE && textOf(c.params.blocks).includes(`*${id}* to delete`) && c.answer?.ok === true,
    );
    return () => fakes.slack.message(String(call.answer?.channel), String(call.answer?.ts));
  }

  /** The DMs the requester got about `id` after the first one, as they look now. */
  function laterDms(id: string) {
    return fakes.slack
      .callsTo('chat.postMessage')
      .filter((c) => c.params.channel === ALICE && c.answer?.ok === true && textOf(c.params.blocks).includes(id))
      .slice(1)
      .map((c) => fakes.slack.message(String(c.answer?.channel), String(c.answer?.ts)));
  }

  /** The first DM once it says the request ended (the outcome itself comes in a DM of its own). */
  const endedDm = (dm: () => { blocks?: unknown }) => textOf(dm()).includes('It has ended');

  async function requesterEnd(id: string, showing: string) {
    return fakes.slack.waitFor(
      () => laterDms(id).find((m) => textOf(m).includes(showing)),
      5_000,
      `the requester's DM saying ${showing}`,
    );
  }

  it('waits for two approvals, shows each, deletes, and says so everywhere', async () => {
    for (const customer of IDS) fakes.mint.customers.add(customer); // the service knows them: all are deleted
    const { id, ts } = await flow.request(app, IDS, ALICE, 'GDPR erasure, ticket #4312');
    const dm = await requesterDm(id);
    await inChannel('deletions/approval-message--0-of-2', flow.approvalMessage(ts));
    await inDm('deletions/requester-dm--waiting', dm());

    await flow.approve(app, ts, BEN);
    await flow.waitForStatus(ts, '*1 of 2 approvals*');
    await fakes.slack.waitFor(() => textOf(dm()).includes('*1 of 2 approvals*'), 5_000, 'the DM to show 1 of 2');
    await inChannel('deletions/approval-message--1-of-2', flow.approvalMessage(ts));
    await inDm('deletions/requester-dm--1-of-2', dm());

    // The message shows "Deleting…" while the service answers: the test reads it when that update is made.
    fakes.mint.latencyMs = 300;
    try {
      await flow.approve(app, ts, CHLOE);
      await flow.waitForStatus(ts, 'Deleting…');
      await inChannel('deletions/approval-message--2-of-2-deleting', flow.approvalMessage(ts));
    } finally {
      fakes.mint.latencyMs = 0;
    }
    await flow.waitForStatus(ts, '*Deleted*');
    await inChannel('deletions/approval-message--approved-and-done', flow.approvalMessage(ts));
    await fakes.slack.waitFor(() => endedDm(dm), 5_000, 'the first DM to point to the outcome');
    await inDm('deletions/requester-dm--done', dm());
    await inDm('deletions/requester-outcome-dm--done', await requesterEnd(id, '*Deleted*'));
  });

  it('is done, but the Mint service did not know one of the customers', async () => {
    fakes.mint.customers.add(IDS[0] ?? '');
    const { ts } = await flow.request(app, IDS.slice(0, 2), ALICE, 'Duplicate accounts', { existing: false });
    await flow.approve(app, ts, BEN);
    await flow.approve(app, ts, CHLOE);
    await flow.waitForStatus(ts, '*Deleted*');
    await inChannel('deletions/approval-message--done-one-not-found', flow.approvalMessage(ts));
  });

  it('is rejected with a reason', async () => {
    const { id, ts } = await flow.request(app, IDS.slice(0, 1), ALICE, 'Customer asked to close the account');
    const dm = await requesterDm(id);
    const view = await flow.openDecision(app, ts, 'reject', BEN);
    await app.submitView(view, { reject_reason: 'No ticket in the support queue matches this' }, BEN);
    await flow.waitForStatus(ts, '*Rejected*');
    await inChannel('deletions/approval-message--rejected', flow.approvalMessage(ts));
    await fakes.slack.waitFor(() => endedDm(dm), 5_000, 'the first DM to point to the outcome');
    await inDm('deletions/requester-dm--rejected', dm());
    await inDm('deletions/requester-outcome-dm--rejected', await requesterEnd(id, '*Rejected*'));
  });

  it('fails at the Mint service, and an approver may try again', async () => {
    fakes.mint.failNext('delete_customers', { mode: 'status', status: 503, body: { message: 'maintenance' } });
    const { id, ts } = await flow.request(app, IDS.slice(0, 2), ALICE, 'Duplicate accounts');
    const dm = await requesterDm(id);
    await flow.approve(app, ts, BEN);
    await flow.approve(app, ts, CHLOE);
    await flow.waitForStatus(ts, '*the deletion failed*');
    await inChannel('deletions/approval-message--failed', flow.approvalMessage(ts));
    await fakes.slack.waitFor(() => endedDm(dm), 5_000, 'the first DM to point to the outcome');
    await inDm('deletions/requester-dm--failed', dm());
    await inDm('deletions/requester-outcome-dm--failed', await requesterEnd(id, '*the deletion failed*'));

    // Another approver tries again: the message shows the second attempt, then the end.
    for (const customer of IDS.slice(0, 2)) fakes.mint.customers.add(customer);
    fakes.mint.latencyMs = 300;
    try {
      await app.click(flow.approvalMessage(ts), DELETIONS.buttons.retry.actionId, CHLOE);
      await flow.waitForStatus(ts, 'Trying again');
      await inChannel('deletions/approval-message--trying-again', flow.approvalMessage(ts));
    } finally {
      fakes.mint.latencyMs = 0;
    }
    await flow.waitForStatus(ts, '*Deleted*');
    await inChannel('deletions/approval-message--done-after-trying-again', flow.approvalMessage(ts));
  });

  it('needs attention when the app stopped during the deletion', async () => {
    const { id, ts } = await flow.request(app, IDS.slice(0, 1), ALICE, 'Fraudulent sign-up');
    const dm = await requesterDm(id);
    await flow.approve(app, ts, BEN);
    await flow.waitForStatus(ts, '*1 of 2 approvals*');
    // As if Chloé's approval had started the run in a process that died long ago: the sweeper finds it stale.
    await runSql(
      app.env.DATABASE_URL ?? '',
      "update deletion_requests set status = 'running', approvals = 2, approved_by = ?, decided_by = ?, decided_at = ?, run_by = ?, run_started_at = ?, attempts = 1 where id = ?",
      [JSON.stringify([BEN, CHLOE]), CHLOE, new Date().toISOString(), CHLOE, '2020-01-01T00:00:00.000Z', id],
    );
    await flow.waitForStatus(ts, '*the app stopped during the deletion*', 10_000);
    await inChannel('deletions/approval-message--interrupted', flow.approvalMessage(ts));
    await fakes.slack.waitFor(() => endedDm(dm), 5_000, 'the first DM to point to the outcome');
    await inDm('deletions/requester-dm--interrupted', dm());
    await inDm('deletions/requester-outcome-dm--interrupted', await requesterEnd(id, 'the app stopped'));
  });

  it('lists the first IDs of a long request, and all of them in its thread', async () => {
    const many = Array.from({ length: 45 }, (_, i) => `cus_${String(i + 1).padStart(4, '0')}`);
    const { ts } = await flow.request(app, many, ALICE, 'Closed reseller: all of its customers');
    await inChannel('deletions/approval-message--long-list', flow.approvalMessage(ts));
    const [thread, ...more] = await fakes.slack.waitFor(
      () => (fakes.slack.threadReplies(APPROVAL, ts).length > 0 ? fakes.slack.threadReplies(APPROVAL, ts) : undefined),
      5_000,
      'the full list in the thread',
    );
    expect(more).toEqual([]);
    await inChannel('deletions/thread-full-list--45-customers', { ...thread, thread_ts: ts });
    await app.click(
      (await requesterDm(/DR-[A-Z0-9]{6}/.exec(textOf(flow.approvalMessage(ts)))?.[0] ?? ''))(),
      DELETIONS.buttons.cancel.actionId,
      ALICE,
    );
    await flow.waitForStatus(ts, '*Cancelled*');
  });

  it('says when a Workflow Builder workflow asked on behalf of someone', async () => {
    const execution = await app.runStep(DELETIONS.steps.requestDeletion.callbackId, {
      customer_ids: IDS.slice(0, 2),
      reason: 'Offboarding workflow: customer closed the account',
      requester: userContext(ALICE),
    });
    const post = await fakes.slack.waitForCall('chat.postMessage', (c) => c.params.channel === APPROVAL);
    const ts = String(post.answer?.ts);
    await inChannel('deletions/approval-message--asked-by-a-workflow', flow.approvalMessage(ts));
    const id = /DR-[A-Z0-9]{6}/.exec(textOf(flow.approvalMessage(ts)))?.[0] ?? '';
    await app.click((await requesterDm(id))(), DELETIONS.buttons.cancel.actionId, ALICE);
    await flow.waitForStatus(ts, '*Cancelled*');
    await fakes.slack.stepEnd(execution); // the workflow is told the request ended
  });

  it('links the message a request was asked from', async () => {
    await app.interact(
      messageShortcut(fakes.slack, DELETIONS.messageShortcuts.requestFromMessage.callbackId, {
        ts: '1763900000.123456',
        text: 'Please delete `cus_8f2a91`: the customer wrote to support',
      }),
    );
    await fakes.slack.waitForCall('views.open');
    await app.submitView(fakes.slack.lastOpenedView(), { [REASON_BLOCK]: 'Asked in #general' }, ALICE);
    const post = await fakes.slack.waitForCall('chat.postMessage', (c) => c.params.channel === APPROVAL);
    const ts = String(post.answer?.ts);
    await inChannel('deletions/approval-message--asked-from-a-message', flow.approvalMessage(ts));
    const id = /DR-[A-Z0-9]{6}/.exec(textOf(flow.approvalMessage(ts)))?.[0] ?? '';
    await app.click((await requesterDm(id))(), DELETIONS.buttons.cancel.actionId, ALICE);
    await flow.waitForStatus(ts, '*Cancelled*');
  });

  it('is cancelled by the requester', async () => {
    const { id, ts } = await flow.request(app, IDS, ALICE, 'Test accounts');
    const dm = await requesterDm(id);
    const stale = flow.approvalMessage(ts);
    await app.click(dm(), DELETIONS.buttons.cancel.actionId, ALICE);
    await flow.waitForStatus(ts, '*Cancelled*');
    await inChannel('deletions/approval-message--cancelled', flow.approvalMessage(ts));
    await fakes.slack.waitFor(
      () => !textOf(dm()).includes(DELETIONS.buttons.cancel.actionId),
      5_000,
      'the DM to lose Cancel',
    );
    await inDm('deletions/requester-dm--cancelled', dm());
    await app.waitForIdle();
    expect(laterDms(id)).toEqual([]); // they cancelled it themselves: the DM above says so, nothing more

    // An approver who clicks the message they still see is told why nothing happens.
    const url = await app.click(stale, DELETIONS.buttons.approve.actionId, BEN);
    const [answer] = await fakes.slack.waitForResponse(url);
    await toClicker('deletions/approve-click--already-cancelled', answer?.body, BEN);
  });

  it('expires without a decision', async () => {
    const { id, ts } = await flow.request(app, IDS.slice(0, 1), ALICE, 'Old trial account');
    const dm = await requesterDm(id);
    // Its time runs out: asked three hours ago, with an hour left then (its dates stay in order on screen).
    const hoursAgo = (hours: number) => new Date(Date.now() - hours * 3_600_000).toISOString();
    await runSql(
      app.env.DATABASE_URL ?? '',
      'update deletion_requests set created_at = ?, expires_at = ? where id = ?',
      [hoursAgo(3), hoursAgo(2), id],
    );
    await flow.waitForStatus(ts, '*Expired*', 10_000); // the sweeper's next pass
    await inChannel('deletions/approval-message--expired', flow.approvalMessage(ts));
    await fakes.slack.waitFor(() => endedDm(dm), 5_000, 'the first DM to point to the outcome');
    await inDm('deletions/requester-dm--expired', dm());
    await inDm('deletions/requester-outcome-dm--expired', await requesterEnd(id, '*Expired*'));
  });

  it('answers a click on the approval message from someone who may not decide', async () => {
    const { id, ts } = await flow.request(app, IDS.slice(0, 1), ALICE, 'Spam account');
    const own = await app.click(flow.approvalMessage(ts), DELETIONS.buttons.approve.actionId, ALICE);
    await toClicker('deletions/approve-click--own-request', (await fakes.slack.waitForResponse(own))[0]?.body, ALICE);
    const stranger = await app.click(flow.approvalMessage(ts), DELETIONS.buttons.reject.actionId, EVE);
    await toClicker(
      'deletions/reject-click--not-an-approver',
      (await fakes.slack.waitForResponse(stranger))[0]?.body,
      EVE,
    );
    await app.click((await requesterDm(id))(), DELETIONS.buttons.cancel.actionId, ALICE); // leaves nothing pending
    await flow.waitForStatus(ts, '*Cancelled*');
  });

  it('reminds the approvers in the thread, and warns the requester before it expires', async () => {
    await runSql(
      app.env.DATABASE_URL ?? '',
      "update deletion_requests set status = 'cancelled' where status = 'pending'",
    );
    const { id, ts } = await flow.request(app, IDS.slice(0, 2), ALICE, 'Closed workspace');
    await flow.approve(app, ts, BEN);
    await flow.waitForStatus(ts, '*1 of 2 approvals*');
    await app.waitForIdle();

    // 25 hours later: the reminder is due.
    hoursAhead = 25;
    const [reminder] = await fakes.slack.waitFor(
      () => (flow.reminders(ts).length > 0 ? flow.reminders(ts) : undefined),
      8_000,
      'the reminder',
    );
    await inChannel('deletions/thread-reminder--1-of-2', reminder, hoursFromNow(25));

    // 70 hours later: 2 of the 72 hours are left, and the requester is warned (the reminder went already).
    hoursAhead = 70;
    const warning = await fakes.slack.waitFor(
      () => laterDms(id).find((m) => textOf(m).includes('expires')),
      8_000,
      'the expiry warning',
    );
    await inDm('deletions/requester-dm--expiry-warning', warning, hoursFromNow(70));
    await app.waitForIdle();
    expect(flow.reminders(ts)).toHaveLength(1);
    await app.click((await requesterDm(id))(), DELETIONS.buttons.cancel.actionId, ALICE);
    await flow.waitForStatus(ts, '*Cancelled*');
  });

  describe('when the Mint service does not answer', () => {
    // An app of its own, whose Mint calls are given up after 1 s (shown on the screen): the other screens'
    // deletions may take longer than that on a busy machine.
    const hasty = useListenerApp(fakes, { env: { ...ENV, MINT_API_TIMEOUT_MS: '1000' } });

    it('fails when the Mint service does not answer in time: the customers may be deleted anyway', async () => {
      fakes.mint.failNext('delete_customers', { mode: 'hang' }, 5);
      const { ts } = await flow.request(hasty.app, IDS.slice(0, 1), ALICE, 'Fraudulent sign-up');
      await flow.approve(hasty.app, ts, BEN);
      await flow.approve(hasty.app, ts, CHLOE);
      await flow.waitForStatus(ts, '*the deletion failed*', 10_000);
      await inChannel('deletions/approval-message--failed-no-answer', flow.approvalMessage(ts));
      await hasty.app.waitForIdle();
    });
  });
});
