import { afterAll, afterEach, beforeAll, expect, it, vi } from 'vitest';
import { DELETIONS } from '../../../src/capabilities/deletions/actions.js';
import type { ListenerApp } from '../../kit/listener-app.js';
import { messageProblems } from '../../kit/block-kit-limits.js';
import { DeletionFlow, buttonsOf } from '../../kit/deletion-flow.js';
import { useFakes } from '../../kit/fakes.js';
import { runSql } from '../../kit/raw-sql.js';
import { expectNoRejectedSlackCalls, expectNoSecretsLeaked, textOf } from '../../kit/slack-checks.js';
import { describeEachEngine, type TestDatabase } from '../../kit/store-engines.js';

const APPROVAL = 'C0APPROVE';
const ALICE = 'U0ALICE01'; // asks; not an approver
const BOB = 'U0APPROV1'; // approver by id
const DAVE = 'U0DAVE004'; // approver by id
const EVE = 'U0EVE0005'; // approver by id
const CAROL = 'U0CAROL03'; // approver through the user group
const GROUP = 'S0GROUP01';
const ENV = {
  APPROVAL_CHANNEL_ID: APPROVAL,
  DELETION_APPROVERS: `${BOB},${DAVE},${EVE},${GROUP}`,
  DELETION_QUORUM: '2',
  DELETION_QUORUM_LARGE: '3',
  DELETION_LARGE_AT: '5',
};
const HOUR_MS = 3_600_000;

describeEachEngine('deletion quorum and reminders', (_engine, create) => {
  const fakes = useFakes();
  const flow = new DeletionFlow(fakes, APPROVAL);
  let db: TestDatabase;
  let app: ListenerApp;
  const extraApps: ListenerApp[] = [];
  /**
   * The reminders' clock of the apps this file starts, moved on by a test and back to the real one after it;
   * an app started with TEST_CLOCK_OFFSET_HOURS has that clock instead.
   */
  let hoursAhead = 0;
  const start = (extra: Record<string, string> = {}) =>
    fakes.startListenerApp({
      env: { ...ENV, DATABASE_URL: db.databaseUrl, ...extra },
      slackRetryWaitMs: 5, // a late update's retries: what is tried again matters here, not the waits between
      ...(extra.TEST_CLOCK_OFFSET_HOURS ? {} : { remindersAheadMs: () => hoursAhead * HOUR_MS }),
    });

  beforeAll(async () => {
    fakes.slack.userGroups.set(GROUP, [CAROL]);
    db = await create();
    app = await start();
  });
  afterAll(async () => {
    expectNoSecretsLeaked(fakes.slack, app);
    await app?.stop();
    await db?.drop();
  });
  afterEach(async () => {
    hoursAhead = 0;
    expectNoRejectedSlackCalls(fakes.slack);
    for (const extra of extraApps.splice(0)) await extra.stop();
  });

  /** `user` opens their Home tab; resolves with it once it shows `showing`. */
  async function home(user: string, showing: string) {
    await app.event({ type: 'app_home_opened', user, channel: `D${user.slice(1)}`, tab: 'home' });
    const shown = () => {
      const published = fakes.slack.callsTo('views.publish').filter((c) => c.params.user_id === user);
      return published.length > 0 ? textOf(fakes.slack.view(user)) : '';
    };
    await fakes.slack.waitFor(() => shown().includes(showing), 5_000, `${user}'s Home showing ${showing}`);
    return shown();
  }

  it('states the quorum in force on the request form', async () => {
    const { view } = await app.commandOpeningModal('delete cus_rule', { user_id: ALICE });
    expect(textOf(view)).toContain(
      'Nothing is deleted until 2 approvers other than you approve the request (3 from 5 customers up).',
    );
  });

  it('needs two different approvers, shows "1 of 2 approvals" everywhere, and deletes once with the second', async () => {
    const { id, ts } = await flow.request(app, ['cus_q1', 'cus_q2'], ALICE);
    expect(textOf(flow.approvalMessage(ts))).toContain('needs 2 approvals from different approvers');
    expect(textOf(flow.approvalMessage(ts))).toContain('*0 of 2 approvals* so far');

    const first = await flow.openDecision(app, ts, 'approve', BOB);
    expect(first).toMatchObject({ submit: { text: 'Approve' } }); // not the last approval: nothing is deleted yet
    expect(textOf(first)).toContain('*0 of 2 approvals* so far. The deletion runs once');
    const ack = await app.submitView(first, {}, BOB);
    expect(textOf(ack)).toContain(`Your approval is recorded: *1 of 2 approvals*: <@${BOB}>`);
    await flow.waitForStatus(ts, `*1 of 2 approvals*: <@${BOB}>`);
    expect(buttonsOf(flow.approvalMessage(ts))).toEqual(
      expect.arrayContaining([DELETIONS.buttons.approve.actionId, DELETIONS.buttons.reject.actionId]),
    );
    const dm = await fakes.slack.waitForCall(
      'chat.update',
      (c) => c.params.channel === `D${ALICE.slice(1)}` && textOf(c.params.blocks).includes('1 of 2 approvals'),
    );
    expect(textOf(dm.params.blocks)).toContain(id);
    const aliceHome = await home(ALICE, id);
    expect(aliceHome).toContain(`*1 of 2 approvals*: <@${BOB}>`);
    expect(aliceHome).toContain(', 2 approvals needed (3 from 5 customers)');
    expect(await home(DAVE, id)).toContain(`*1 of 2 approvals*: <@${BOB}>`); // still waits for Dave
    expect(await home(BOB, 'Waiting for your approval')).toContain('*Waiting for your approval* (0)'); // his part is done
    await app.waitForIdle();
    expect(flow.patches()).toEqual([]);

    // Bob cannot approve twice: told so, and no modal opens.
    const opened = fakes.slack.callsTo('views.open').length;
    const url = await app.click(flow.approvalMessage(ts), DELETIONS.buttons.approve.actionId, BOB);
    const [again] = await fakes.slack.waitForResponse(url);
    expect(again?.body.text).toContain(
      `You already approved request ${id} (*1 of 2 approvals*: <@${BOB}>); it waits for 1 more approver.`,
    );
    expect(fakes.slack.callsTo('views.open')).toHaveLength(opened);

    const last = await flow.openDecision(app, ts, 'approve', CAROL);
    expect(last).toMatchObject({ submit: { text: 'Delete 2 customers' } });
    expect(textOf(last)).toContain(`*1 of 2 approvals*: <@${BOB}>; yours is the last one needed.`);
    expect(textOf(await app.submitView(last, {}, CAROL))).toContain('Deleting 2 customers');
    const done = await flow.waitForStatus(ts, '*Deleted* 2 customers');
    expect(textOf(done)).toContain(`*Approved* by <@${BOB}> and <@${CAROL}>`);
    expect(buttonsOf(done)).toEqual([]);
    expect(flow.patches()).toHaveLength(1);
    expect(flow.patches()[0]?.body).toEqual(['cus_q1', 'cus_q2']);
    expect(await flow.auditOf(app, id)).toEqual([
      ['customers.delete.request', 'done', ALICE],
      ['customers.delete.approve', 'approval 1 of 2', BOB],
      ['customers.delete.approve', 'approved', CAROL],
      ['customers.delete.run', 'succeeded', CAROL],
    ]);
    expect((await flow.stored(app, id))?.approverIds).toEqual([BOB, CAROL]);
  });

  it('ends with the messages showing the newest state, even when an earlier update lands late', async () => {
    const { ts } = await flow.request(app, ['cus_late'], ALICE);
    // Bob's updates are held and fail once (the SDK tries again): they land after Dave's approval ran the deletion.
    let releaseBobsUpdates: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (releaseBobsUpdates = resolve));
    fakes.slack.answerNext('chat.update', { status: 500, until: held }, 2);
    await flow.approve(app, ts, BOB);
    await flow.approve(app, ts, DAVE);
    // The deletion has run (the Mint service's side: the fake Slack's waits wake on Slack calls only).
    await vi.waitFor(() => expect(flow.patches()).not.toEqual([]), { timeout: 5_000, interval: 5 });
    releaseBobsUpdates();
    await flow.waitForStatus(ts, '*Deleted*');
    await app.waitForIdle(10_000);
    expect(textOf(flow.approvalMessage(ts))).toContain('*Deleted*');
    expect(buttonsOf(flow.approvalMessage(ts))).toEqual([]);
    fakes.slack.reset(); // the refused updates were the point of this test
  });

  it('refuses at once a request that the named approvers could never approve enough', async () => {
    const few = await fakes.startListenerApp({
      env: {
        ...ENV,
        DATABASE_URL: db.databaseUrl,
        DELETION_APPROVERS: `${BOB},${DAVE}`,
        DELETION_QUORUM_LARGE: undefined,
        DELETION_LARGE_AT: undefined,
      },
    });
    extraApps.push(few);
    const { view } = await few.commandOpeningModal('delete cus_few', { user_id: BOB });
    await few.submitView(view, { reason: 'r' }, BOB);
    const shown = await fakes.slack.viewUpdate(view.id);
    expect(textOf(shown)).toContain(
      'This request needs 2 approvals from different approvers, but only 1 of the approvers could approve a request of yours',
    );
    await few.waitForIdle();
    expect(fakes.slack.callsTo('chat.postMessage').filter((c) => c.params.channel === APPROVAL)).toEqual([]);
  });

  it('never counts the requester, and one rejection rejects after approvals', async () => {
    const { id, ts } = await flow.request(app, ['cus_rq'], DAVE); // Dave is an approver, but asks this time
    const url = await app.click(flow.approvalMessage(ts), DELETIONS.buttons.approve.actionId, DAVE);
    expect((await fakes.slack.waitForResponse(url))[0]?.body.text).toContain('You asked for this deletion');
    await flow.approve(app, ts, BOB);
    await flow.waitForStatus(ts, `*1 of 2 approvals*: <@${BOB}>`);
    const reject = await flow.openDecision(app, ts, 'reject', EVE);
    await app.submitView(reject, { reject_reason: 'wrong customer' }, EVE);
    const rejected = await flow.waitForStatus(ts, `*Rejected* by <@${EVE}>`);
    expect(buttonsOf(rejected)).toEqual([]);
    await app.waitForIdle();
    expect(flow.patches()).toEqual([]);
    expect((await flow.stored(app, id))?.status).toBe('rejected');
  });

  it('asks large requests for the large quorum (3 approvals from 5 customers up)', async () => {
    const small = await flow.request(app, ['cus_s1', 'cus_s2', 'cus_s3', 'cus_s4'], ALICE);
    expect(textOf(flow.approvalMessage(small.ts))).toContain('*0 of 2 approvals* so far');
    const ids = ['cus_l1', 'cus_l2', 'cus_l3', 'cus_l4', 'cus_l5'];
    const { id, ts } = await flow.request(app, ids, ALICE);
    expect(textOf(flow.approvalMessage(ts))).toContain('needs 3 approvals from different approvers');
    await flow.approve(app, ts, BOB);
    await flow.approve(app, ts, DAVE);
    await flow.waitForStatus(ts, `*2 of 3 approvals*: <@${BOB}> and <@${DAVE}>`);
    await app.waitForIdle();
    expect(flow.patches()).toEqual([]);
    await flow.approve(app, ts, EVE);
    const done = await flow.waitForStatus(ts, '*Deleted* 5 customers');
    expect(textOf(done)).toContain(`*Approved* by <@${BOB}>, <@${DAVE}> and <@${EVE}>`);
    expect(messageProblems(done)).toEqual([]);
    expect(flow.patches()).toHaveLength(1);
    expect((await flow.auditOf(app, id)).map(([, outcome]) => outcome)).toEqual([
      'done',
      'approval 1 of 3',
      'approval 2 of 3',
      'approved',
      'succeeded',
    ]);
  });

  it('reminds once in the thread after DELETION_REMIND_AFTER_HOURS (clock moved 25 h), also after a restart', async () => {
    const { id, ts } = await flow.request(app, ['cus_remind'], ALICE);
    await flow.approve(app, ts, BOB);
    await flow.waitForStatus(ts, `*1 of 2 approvals*: <@${BOB}>`);
    await app.waitForIdle();
    expect(flow.reminders(ts)).toEqual([]); // the real clock: nothing is due

    // Two replicas on one database, whose clock moves 25 hours on at once: one reminder between them.
    const replica = await start();
    extraApps.push(replica);
    hoursAhead = 25;
    await fakes.slack.waitFor(() => flow.reminders(ts).length > 0, 8_000, 'the reminder');
    await Promise.all([app, replica].map((a) => a.waitForIdle()));
    const [reminder, ...more] = flow.reminders(ts);
    expect(more).toEqual([]);
    const text = textOf(reminder);
    expect(text).toContain(`request *${id}* of <@${ALICE}> to delete *1 customer*`);
    expect(text).toContain(`*1 of 2 approvals*: <@${BOB}>`);
    // Who could still decide: not Bob (approved), each group as a group.
    expect(text).toContain(`<@${DAVE}>, <@${EVE}>, <!subteam^${GROUP}>: please approve or reject it.`);
    expect(messageProblems(reminder ?? {})).toEqual([]);

    // Restarted: the reminder is stored as sent, so there is no second one.
    await replica.stop();
    const restarted = await start();
    extraApps.push(restarted);
    await restarted.waitForIdle();
    expect(flow.reminders(ts)).toHaveLength(1);
    expect(warningsTo(ALICE, id)).toEqual([]); // 47 hours are left: too early to warn
  });

  it('warns the requester by DM a few hours before expiry, once, trying again when Slack fails', async () => {
    // Only this request pending, and thread reminders off: the warning is the one message the next app sends.
    await runSql(db.databaseUrl, "update deletion_requests set status = 'cancelled' where status = 'pending'");
    const { id } = await flow.request(app, ['cus_warn'], ALICE);
    await app.waitForIdle();
    // A refusal (Slack did nothing): given back and sent again. (After internal_error, which Slack says may come
    // after part of the work was done, it would not be: see reminders-slow-slack.test.ts.)
    fakes.slack.answerNext('chat.postMessage', { body: { ok: false, error: 'service_unavailable' } });
    // An app whose clock TEST_CLOCK_OFFSET_HOURS sets, as in a test's app process (the other tests here move
    // the clock of the apps they run instead): 2 of the 72 hours are left.
    const late = await start({ TEST_CLOCK_OFFSET_HOURS: '70', DELETION_REMIND_AFTER_HOURS: '0' });
    extraApps.push(late);
    expect(late.logLines.some((l) => String(l.msg).includes('TEST_CLOCK_OFFSET_HOURS is set'))).toBe(true);
    await fakes.slack.waitFor(() => warningsTo(ALICE, id).length > 0, 8_000, 'the expiry warning');
    await late.waitForIdle();
    const [warning, ...more] = warningsTo(ALICE, id);
    expect(more).toEqual([]);
    expect(textOf(warning?.params.blocks)).toContain(`Your request *${id}* to delete *1 customer* expires`);
    expect(textOf(warning?.params.blocks)).toContain(
      '(in about 2 hours) without enough approvals (*0 of 2 approvals* so far)',
    );
    const refused = fakes.slack
      .callsTo('chat.postMessage')
      .filter((c) => c.params.channel === ALICE && c.answer?.ok === false && textOf(c.params.blocks).includes(id));
    expect(refused).toHaveLength(1); // the first attempt, given back and sent again at the next sweep
    fakes.slack.calls.splice(0); // the refused attempt was the point
    await late.stop();
    const again = await start({ TEST_CLOCK_OFFSET_HOURS: '70', DELETION_REMIND_AFTER_HOURS: '0' });
    extraApps.push(again);
    await again.waitForIdle();
    expect(warningsTo(ALICE, id)).toEqual([]); // sent before the restart, not again
  });

  /** Expiry warnings about request `id` that reached Slack. */
  function warningsTo(user: string, id: string) {
    return fakes.slack
      .callsTo('chat.postMessage')
      .filter(
        (c) =>
          c.params.channel === user &&
          c.answer?.ok === true &&
          textOf(c.params.blocks).includes(`${id}* to delete`) &&
          textOf(c.params.blocks).includes('expires'),
      );
  }
});
