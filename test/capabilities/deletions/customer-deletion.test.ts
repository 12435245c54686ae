import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { DELETIONS } from '../../../src/capabilities/deletions/actions.js';
import { REASON_BLOCK, idsBlock } from '../../../src/capabilities/deletions/deletion-request-form.js';
import { TEST_MINT_API_KEY } from '../../kit/app-process.js';
import type { ListenerApp } from '../../kit/listener-app.js';
import { messageProblems, viewProblems } from '../../kit/block-kit-limits.js';
import { useFakes } from '../../kit/fakes.js';
import { runSql } from '../../kit/raw-sql.js';
import { buttonClick } from '../../kit/slack-payloads.js';
import { expectNoRejectedSlackCalls, expectNoSecretsLeaked, textOf } from '../../kit/slack-checks.js';
import { describeEachEngine, type TestDatabase } from '../../kit/store-engines.js';
import { ALICE, APPROVAL, BOB, CAROL, Deletion, GROUP, MALLORY, buttonsOf } from './customer-deletion-flow.js';

describeEachEngine('customer deletion', (_engine, create) => {
  const fakes = useFakes();
  let db: TestDatabase;
  let flow: Deletion;
  let app: ListenerApp;
  const extraApps: ListenerApp[] = [];

  beforeAll(async () => {
    fakes.slack.userGroups.set(GROUP, [CAROL, 'U0DAVE004']);
    db = await create();
    flow = new Deletion(fakes, db);
    app = await flow.start();
  });
  afterAll(async () => {
    expectNoSecretsLeaked(fakes.slack, app);
    await app?.stop();
    await db?.drop();
  });
  afterEach(async () => {
    expectNoRejectedSlackCalls(fakes.slack);
    for (const extra of extraApps.splice(0)) await extra.stop('SIGKILL');
  });

  it('asks, another approves, and the deletion runs once with exactly the IDs given', async () => {
    const { id, ts, notice } = await flow.request(app, ['cus_1', 'cus_2', 'cus_1', 'cus_3']);
    expect(notice).toContain(
      `Request *${id}* to delete *3 customers* (1 repeated ID dropped) is waiting for approval in <#${APPROVAL}>`,
    );
    const waiting = flow.approvalMessage(ts);
    expect(textOf(waiting)).toContain('<@U0ALICE01> asks to delete *3 customers*');
    expect(textOf(waiting)).toContain('*Reason:* GDPR erasure requests #42');
    expect(textOf(waiting)).toContain('`cus_1`, `cus_2`, `cus_3`');
    expect(buttonsOf(waiting)).toEqual(
      expect.arrayContaining([DELETIONS.buttons.approve.actionId, DELETIONS.buttons.reject.actionId]),
    );
    const dm = await fakes.slack.waitForCall(
      'chat.postMessage',
      (c) => c.params.channel === ALICE && textOf(c.params.blocks).includes(id),
    );
    expect(textOf(dm.params.blocks)).toContain(`was sent for approval in <#${APPROVAL}>`);
    expect(buttonsOf({ blocks: dm.params.blocks as Array<Record<string, any>> })).toContain(
      DELETIONS.buttons.cancel.actionId,
    );
    expect(flow.patches()).toEqual([]);

    const { view, ack } = await flow.approve(app, ts, BOB);
    expect(view).toMatchObject({ callback_id: 'deletion_approve_form', submit: { text: 'Delete 3 customers' } });
    expect(textOf(view)).toContain('```cus_1, cus_2, cus_3```');
    expect(ack).toMatchObject({
      response_action: 'update',
      view: { blocks: [{ text: { text: ':hourglass_flowing_sand: Deleting 3 customers…' } }, expect.anything()] },
    });

    const done = await flow.waitForStatus(ts, '*Deleted* 3 customers');
    expect(textOf(done)).toContain('*Approved* by <@U0APPROV1>');
    expect(buttonsOf(done)).toEqual([]);
    expect(flow.patches()).toHaveLength(1);
    expect(flow.patches()[0]).toMatchObject({
      method: 'PATCH',
      url: '/v1/customer/delete',
      body: ['cus_1', 'cus_2', 'cus_3'],
      headers: { 'x-api-key': TEST_MINT_API_KEY, 'content-type': 'application/json' },
    });
    const outcome = await fakes.slack.waitForCall(
      'chat.postMessage',
      (c) => c.params.channel === ALICE && textOf(c.params.blocks).includes('*Deleted*'),
    );
    expect(textOf(outcome.params.blocks)).toContain(`Your request *${id}*`);
    await fakes.slack.waitForCall(
      'views.update',
      (c) => c.params.view_id === view.id && textOf(c.params.view).includes('*Deleted* 3 customers'),
    );
    expect(await flow.status(app, id)).toBe('done');
    expect(
      (await flow.audit(app))
        .filter((e) => JSON.stringify(e.inputs).includes(id))
        .map((e) => [e.operation, e.outcome, e.actorId]),
    ).toEqual([
      ['customers.delete.request', 'done', ALICE],
      ['customers.delete.approve', 'approved', BOB],
      ['customers.delete.run', 'succeeded', BOB],
    ]);
  });

  it('refuses the requester approving their own request, even as an approver', async () => {
    const { id, ts } = await flow.request(app, ['cus_self'], BOB);
    const url = await flow.click(app, ts, DELETIONS.buttons.approve.actionId, BOB);
    const [refusal] = await fakes.slack.waitForResponse(url);
    expect(refusal?.body).toMatchObject({
      response_type: 'ephemeral',
      replace_original: false,
      text: expect.stringContaining('You asked for this deletion, so another approver must decide it.'),
    });
    expect(
      fakes.slack.callsTo('views.open').filter((c) => c.at > Date.now() - 2_000 && textOf(c.params.view).includes(id)),
    ).toEqual([]);
    expect(await flow.status(app, id)).toBe('pending');
  });

  it('refuses anyone who is not an approver, and changes nothing', async () => {
    const { id, ts } = await flow.request(app, ['cus_m']);
    for (const action of [DELETIONS.buttons.approve.actionId, DELETIONS.buttons.reject.actionId]) {
      const url = await flow.click(app, ts, action, MALLORY);
      const [refusal] = await fakes.slack.waitForResponse(url);
      expect(refusal?.body.text).toContain(
        'Only the approvers of this request can decide it (<@U0APPROV1>, <!subteam^S0GROUP01>). Nothing was changed.',
      );
    }
    expect(await flow.status(app, id)).toBe('pending');
    expect(buttonsOf(flow.approvalMessage(ts))).toEqual(
      expect.arrayContaining([DELETIONS.buttons.approve.actionId, DELETIONS.buttons.reject.actionId]),
    );
    expect(flow.patches()).toEqual([]);
  });

  it('accepts a member of an approver user group', async () => {
    const { ts } = await flow.request(app, ['cus_g1', 'cus_g2']);
    await flow.approve(app, ts, CAROL);
    const done = await flow.waitForStatus(ts, '*Deleted* 2 customers');
    expect(textOf(done)).toContain('*Approved* by <@U0CAROL03>'); // not listed by id: only the group makes her an approver
  });

  it('asks Slack again at the decision: someone removed from the group after opening the modal cannot approve', async () => {
    const { id, ts } = await flow.request(app, ['cus_removed']);
    const view = await flow.openDecision(app, ts, 'approve', CAROL);
    fakes.slack.userGroups.set(GROUP, ['U0DAVE004']);
    try {
      const ack = await app.submitView(view, {}, CAROL);
      expect(textOf(ack)).toContain('Only the approvers of this request can decide it');
      expect(await flow.status(app, id)).toBe('pending');
      expect(flow.patches()).toEqual([]);
    } finally {
      fakes.slack.userGroups.set(GROUP, [CAROL, 'U0DAVE004']);
    }
  });

  it('runs one deletion when two approvers submit at the same moment', async () => {
    const { ts } = await flow.request(app, ['cus_race']);
    const bobView = await flow.openDecision(app, ts, 'approve', BOB);
    const carolView = await flow.openDecision(app, ts, 'approve', CAROL);
    const acks = await Promise.all([app.submitView(bobView, {}, BOB), app.submitView(carolView, {}, CAROL)]);
    await flow.waitForStatus(ts, '*Deleted* 1 customer');
    expect(flow.patches()).toHaveLength(1);
    const told = acks.map((a) => textOf(a));
    expect(told.filter((t) => t.includes('Deleting 1 customer'))).toHaveLength(1);
    expect(told.filter((t) => /already approved by <@U0(APPROV1|CAROL03)>/.test(t))).toHaveLength(1);
  });

  it('rejects with a reason: no deletion, and the requester is told why', async () => {
    const { id, ts } = await flow.request(app, ['cus_r']);
    const view = await flow.openDecision(app, ts, 'reject', BOB);
    expect(view.callback_id).toBe('deletion_reject_form');
    await app.submitView(view, { reject_reason: 'Ticket not verified' }, BOB);
    const rejected = await flow.waitForStatus(ts, '*Rejected* by <@U0APPROV1>');
    expect(textOf(rejected)).toContain('Reason: Ticket not verified');
    expect(buttonsOf(rejected)).toEqual([]);
    await fakes.slack.waitForCall(
      'chat.postMessage',
      (c) => c.params.channel === ALICE && textOf(c.params.blocks).includes('*Rejected*'),
    );
    expect(flow.patches()).toEqual([]);
    expect(await flow.status(app, id)).toBe('rejected');
    // Told once: in a DM of its own (it notifies); the first DM, edited in place, points there and offers no Cancel.
    await app.waitForIdle();
    const dms = fakes.slack
      .callsTo('chat.postMessage')
      .filter((c) => c.params.channel === ALICE && textOf(c.params.blocks).includes(id));
    expect(dms).toHaveLength(2);
    const [first, outcome] = dms.map((c) =>
      textOf(fakes.slack.message(String(c.answer?.channel), String(c.answer?.ts))),
    );
    expect(outcome).toContain('*Rejected* by <@U0APPROV1>');
    expect(first).not.toContain('*Rejected*');
    expect(first).toContain(`It has ended: see the message about ${id} below.`);
    expect(first).not.toContain(DELETIONS.buttons.cancel.actionId);
  });

  it('lets the requester cancel while pending: no deletion, and nobody can approve it after', async () => {
    const { id, ts } = await flow.request(app, ['cus_c']);
    const dm = await fakes.slack.waitForCall(
      'chat.postMessage',
      (c) => c.params.channel === ALICE && textOf(c.params.blocks).includes(id),
    );
    const dmMessage = fakes.slack.message(String(dm.answer?.channel), String(dm.answer?.ts));
    const staleApproval = flow.approvalMessage(ts);
    await app.click(dmMessage, DELETIONS.buttons.cancel.actionId, ALICE);
    const cancelled = await flow.waitForStatus(ts, '*Cancelled* by the requester');
    expect(buttonsOf(cancelled)).toEqual([]);
    await fakes.slack.waitFor(
      () => buttonsOf(fakes.slack.message(dmMessage.channelId, dmMessage.ts)).length === 0,
      3_000,
      'the Cancel button to go',
    );
    const url = await app.click(staleApproval, DELETIONS.buttons.approve.actionId, BOB);
    const [refusal] = await fakes.slack.waitForResponse(url);
    expect(refusal?.body.text).toContain(`Request ${id} was cancelled by the requester`);
    expect(flow.patches()).toEqual([]);
  });

  it('lets a request expire: no deletion, the message and the requester say so', async () => {
    const { id, ts } = await flow.request(app, ['cus_e']);
    const pending = flow.approvalMessage(ts);
    await runSql(db.databaseUrl, 'update deletion_requests set expires_at = ? where id = ?', [
      '2020-01-01T00:00:00.000Z',
      id,
    ]);
    const url = await app.click(pending, DELETIONS.buttons.approve.actionId, BOB);
    const [refusal] = await fakes.slack.waitForResponse(url);
    expect(refusal?.body.text).toContain(`Request ${id} expired`);
    const expired = await flow.waitForStatus(ts, '*Expired*');
    expect(buttonsOf(expired)).toEqual([]);
    await fakes.slack.waitForCall(
      'chat.postMessage',
      (c) => c.params.channel === ALICE && textOf(c.params.blocks).includes('*Expired*'),
    );
    expect(flow.patches()).toEqual([]);
    expect(
      (await flow.audit(app)).some((e) => e.operation === 'customers.delete.expire' && e.actorId === 'system'),
    ).toBe(true);
  });

  it('sends one deletion for one retry click, even when Slack (or a proxy) delivers the click twice', async () => {
    fakes.mint.failNext('delete_customers', { mode: 'status', status: 503 }, 2);
    const { ts } = await flow.request(app, ['cus_twice_1']);
    await flow.approve(app, ts, BOB);
    await flow.waitForStatus(ts, '*the deletion failed*');
    const click = buttonClick(fakes.slack, flow.approvalMessage(ts), DELETIONS.buttons.retry.actionId, CAROL);
    await app.interact(click);
    await app.waitForIdle();
    await flow.waitForStatus(ts, '*the deletion failed*'); // the retry failed too
    await app.interact(click); // the same click again
    await app.waitForIdle();
    expect(flow.patches()).toHaveLength(2);
    await flow.click(app, ts, DELETIONS.buttons.retry.actionId, CAROL); // a new click is a new retry
    await flow.waitForStatus(ts, '*Deleted* 1 customer');
    expect(flow.patches()).toHaveLength(3);
  });

  it('records a failing service as failed, and an approver can try again without a new approval', async () => {
    fakes.mint.failNext('delete_customers', { mode: 'status', status: 503, body: { message: 'maintenance' } });
    const { id, ts } = await flow.request(app, ['cus_f1', 'cus_f2']);
    await flow.approve(app, ts, BOB);
    const failed = await flow.waitForStatus(ts, '*the deletion failed*');
    expect(textOf(failed)).toContain('unavailable right now (HTTP 503)');
    expect(buttonsOf(failed)).toEqual(expect.arrayContaining([DELETIONS.buttons.retry.actionId]));
    await fakes.slack.waitForCall(
      'chat.postMessage',
      (c) => c.params.channel === ALICE && textOf(c.params.blocks).includes('*the deletion failed*'),
    );
    expect(await flow.status(app, id)).toBe('failed');

    const refused = await flow.click(app, ts, DELETIONS.buttons.retry.actionId, ALICE);
    expect((await fakes.slack.waitForResponse(refused))[0]?.body.text).toContain('You asked for this deletion');
    await flow.click(app, ts, DELETIONS.buttons.retry.actionId, CAROL);
    const done = await flow.waitForStatus(ts, '*Deleted* 2 customers');
    expect(buttonsOf(done)).toEqual([]);
    expect(flow.patches().map((p) => p.body)).toEqual([
      ['cus_f1', 'cus_f2'],
      ['cus_f1', 'cus_f2'],
    ]);
    expect(
      (await flow.audit(app))
        .filter((e) => e.operation === 'customers.delete.run' && JSON.stringify(e.inputs).includes(id))
        .map((e) => [e.outcome, e.actorId]),
    ).toEqual([
      ['failed', BOB],
      ['succeeded', CAROL],
    ]);
  });

  it('keeps 1000 IDs within block limits: form boxes, approval message, thread, confirmation', async () => {
    const ids = Array.from({ length: 1000 }, (_, i) => `customer-${String(i).padStart(6, '0')}`);
    for (const id of ids) fakes.mint.customers.add(id); // customers the Mint service has
    let view = (await app.commandOpeningModal('delete', { user_id: ALICE })).view;
    for (let box = 2; box <= 7; box += 1) {
      await app.clickInView(view, DELETIONS.buttons.addIdsBox.actionId, {}, ALICE);
      await fakes.slack.waitForCall(
        'views.update',
        (c) => c.params.view_id === view.id && textOf(c.params.view).includes(`box ${box})`),
      );
      view = fakes.slack.view(view.id);
    }
    const entries: Record<string, string> = { [REASON_BLOCK]: 'Bulk clean-up' };
    for (let box = 0; box < 7; box += 1) entries[idsBlock(box + 1)] = ids.slice(box * 150, (box + 1) * 150).join('\n');
    await app.submitView(view, entries, ALICE);
    const post = await fakes.slack.waitForCall(
      'chat.postMessage',
      (c) => c.params.channel === APPROVAL && textOf(c.params.blocks).includes('*1000 customers*'),
    );
    const ts = String(post.answer?.ts);
    expect(messageProblems(flow.approvalMessage(ts))).toEqual([]);
    expect(textOf(flow.approvalMessage(ts))).toContain('and 980 more: the full list is in the thread');
    await fakes.slack.waitFor(() => fakes.slack.threadReplies(APPROVAL, ts).length >= 2, 5_000, 'the thread');
    const thread = fakes.slack.threadReplies(APPROVAL, ts);
    expect(thread.flatMap((m) => messageProblems(m))).toEqual([]);
    const threadTexts = thread.map((m) => textOf(m));
    expect(ids.every((id) => threadTexts.some((text) => text.includes(id)))).toBe(true);

    const { view: confirm } = await flow.approve(app, ts, BOB);
    expect(viewProblems(confirm)).toEqual([]);
    const confirmText = textOf(confirm);
    expect(ids.every((id) => confirmText.includes(id))).toBe(true);
    await flow.waitForStatus(ts, '*Deleted* 1000 customers');
    expect(flow.patches()[0]?.body).toEqual(ids);
  });

  it('answers bad requests inline and stores nothing', async () => {
    const { view } = await app.commandOpeningModal('delete', { user_id: ALICE });
    const tooMany = Array.from({ length: 1001 }, (_, i) => `c${i}`);
    const cases: Array<[Record<string, string>, Record<string, string>]> = [
      [{ [REASON_BLOCK]: 'r' }, { [idsBlock(1)]: 'Enter at least one customer ID.' }],
      [
        { [idsBlock(1)]: 'ok b@d! -x', [REASON_BLOCK]: 'r' },
        { [idsBlock(1)]: '"b@d!", "-x" are not customer IDs (use letters, digits and . _ : @ + -).' },
      ],
      [
        { [idsBlock(1)]: tooMany.join(' ') },
        {
          [idsBlock(1)]:
            'That is 1001 customer IDs; one deletion request takes at most 1000. Split the list into several requests.',
          [REASON_BLOCK]: 'Give a reason: the approvers read it.',
        },
      ],
      [{ [idsBlock(1)]: 'c1' }, { [REASON_BLOCK]: 'Give a reason: the approvers read it.' }],
    ];
    const stored = async () => {
      const store = app.openStore();
      try {
        return await store.deletionRequests.count();
      } finally {
        await store.close();
      }
    };
    const before = await stored();
    for (const [entries, errors] of cases) {
      expect(await app.submitView(view, entries, ALICE)).toEqual({ response_action: 'errors', errors });
    }
    expect(await stored()).toBe(before);
    expect(fakes.slack.callsTo('chat.postMessage').filter((c) => c.params.channel === APPROVAL)).toEqual([]);
  });

  it('still works after a restart between the request and the approval', async () => {
    const first = await flow.start();
    extraApps.push(first);
    const { ts } = await flow.request(first, ['cus_restart']);
    expect(await first.stop('SIGTERM')).toBe(0);
    const second = await flow.start();
    extraApps.push(second);
    await flow.approve(second, ts, BOB);
    await flow.waitForStatus(ts, '*Deleted* 1 customer');
    expect(flow.patches()).toHaveLength(1);
  });

  it('shows the outcome on the approval message even when its id was not stored in time', async () => {
    const { id, ts } = await flow.request(app, ['cus_lost_ts']);
    await runSql(
      db.databaseUrl,
      'update deletion_requests set approval_channel_id = null, approval_message_ts = null where id = ?',
      [id],
    );
    await flow.approve(app, ts, BOB);
    await flow.waitForStatus(ts, '*Deleted* 1 customer');
  });

  it('finishes and records a deletion in flight when the process is told to stop', async () => {
    const stopping = await flow.start();
    extraApps.push(stopping);
    const { id, ts } = await flow.request(stopping, ['cus_sigterm']);
    // The service holds its answer until the app has been told to stop.
    let answer: () => void = () => undefined;
    fakes.mint.holdAnswers = new Promise<void>((resolve) => (answer = resolve));
    const view = await flow.openDecision(stopping, ts, 'approve', BOB);
    await stopping.submitView(view, {}, BOB);
    // The Mint service's side: the fake Slack's waits wake on Slack calls only.
    await vi.waitFor(() => expect(flow.patches()).toHaveLength(1), { timeout: 3_000, interval: 5 });
    // Told to stop while the deletion is the only work in flight: the app's background work comes and goes on its
    // own (the Home refresh the approval asked for; the reminder sweep, every 100 ms here, of the requests earlier
    // tests left pending), so the stop comes in the same tick as a check that nothing but the deletion runs.
    const { stopped } = await vi.waitFor(
      () => {
        expect(stopping.workInFlight()).toBe(1);
        return { stopped: stopping.stop('SIGTERM') };
      },
      { timeout: 3_000, interval: 5 },
    );
    expect(stopping.logLines.find((l) => l.msg === 'shutting down')).toMatchObject({ workInFlight: 1 });
    answer();
    expect(await stopped).toBe(0);
    expect(await flow.status(app, id)).toBe('done');
    expect(textOf(flow.approvalMessage(ts))).toContain('*Deleted* 1 customer');
  });
});

describe('customer deletion, misconfigured', () => {
  const fakes = useFakes();

  it('says what is missing and stores nothing when deletion is not configured', async () => {
    const app = await fakes.startListenerApp({
      env: { APPROVAL_CHANNEL_ID: undefined, DELETION_APPROVERS: undefined },
    });
    try {
      const { ack } = await app.command('delete cus_1');
      expect(ack).toMatchObject({
        response_type: 'ephemeral',
        text: expect.stringContaining('must set APPROVAL_CHANNEL_ID and DELETION_APPROVERS'),
      });
      expect(fakes.slack.callsTo('views.open')).toEqual([]);
      await app.shortcut('request_customer_deletion');
      await fakes.slack.waitForCall('views.open');
      expect(textOf(fakes.slack.lastOpenedView())).toContain('Customer deletion is not set up');
    } finally {
      await app.stop();
    }
  });

  it('cancels the request at once, and says why, when the approval channel refuses the message', async () => {
    fakes.slack.channelsWithoutBot.add('C0PRIVATE');
    const app = await fakes.startListenerApp({ env: { APPROVAL_CHANNEL_ID: 'C0PRIVATE', DELETION_APPROVERS: BOB } });
    try {
      const { view } = await app.commandOpeningModal('delete cus_1');
      await app.submitView(view, { [REASON_BLOCK]: 'r' });
      const update = await fakes.slack.waitForCall(
        'views.update',
        (c) => c.params.view_id === view.id && textOf(c.params.view).includes('did not take the request'),
      );
      expect(textOf(update.params.view)).toContain(
        '(not_in_channel), so it was cancelled and nothing waits for approval',
      );
      const store = app.openStore();
      try {
        expect((await store.deletionRequests.list()).map((r) => r.status)).toEqual(['cancelled']);
      } finally {
        await store.close();
      }
      fakes.slack.calls.splice(0); // the refused post was the point of this test
    } finally {
      await app.stop();
    }
  });
});
