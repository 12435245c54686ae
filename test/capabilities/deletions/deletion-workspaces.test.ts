import { requestPosted } from '../../kit/deletion-flow.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DELETIONS } from '../../../src/capabilities/deletions/actions.js';
import { REASON_BLOCK } from '../../../src/capabilities/deletions/deletion-request-form.js';
import { REJECT_REASON_BLOCK } from '../../../src/capabilities/deletions/decision-modal.js';
import type { DeletionRequest } from '../../../src/platform/store/deletion-requests.js';
import type { ListenerApp } from '../../kit/listener-app.js';
import { startTwoWorkspaces } from '../../kit/listener-installs.js';
import { useFakes } from '../../kit/fakes.js';
import { runSql } from '../../kit/raw-sql.js';
import { TEST_TEAM_ID, TEST_USER_ID } from '../../kit/slack-ids.js';
import {
  buttonClick,
  eventCallback,
  messageShortcut,
  userContext,
  viewButtonClick,
  viewSubmission,
  type PostedMessage,
  type SlackView,
} from '../../kit/slack-payloads.js';
import { textOf } from '../../kit/slack-checks.js';
import type { TestDatabase } from '../../kit/store-engines.js';
import { responseUrls, stateValues, type Entry } from '../../kit/view-state.js';
import { OTHER_TEAM_ID, OTHER_USER_ID, inTeam, uninstallPayload } from '../../kit/workspaces.js';

/*
 * Two workspaces install the app ("Add to Slack"); each has its own approval channel and approvers (A: the
 * environment's; B: set in Slack, stored before the app starts). Whatever one workspace's requests name, they
 * never read, change or show anything of the other's, and everything the app does for a workspace in the
 * background carries that workspace's own token.
 */

const A = TEST_TEAM_ID;
const B = OTHER_TEAM_ID;
const CHANNEL_A = 'C0APPROVE';
const CHANNEL_B = 'C0BAPPROVE';
const ALICE = TEST_USER_ID; // asks in A
const BOB = 'U0APPROV1'; // approves in A
const DAVE = OTHER_USER_ID; // asks in B
const CAROL = 'U0CAROLB1'; // approves in B
const GRID = 'U0GRID0001'; // an Enterprise Grid member of both: an approver in each
const NOT_FOUND = /Deletion request DR-[A-Z0-9]{6} was not found in this workspace\. Nothing was changed\./;

describe('customer deletion in several workspaces', () => {
  const fakes = useFakes();
  let db: TestDatabase;
  let app: ListenerApp;
  let token: Record<string, string> = {};

  beforeAll(async () => {
    ({
      app,
      db,
      tokens: token,
    } = await startTwoWorkspaces(
      fakes,
      { teamId: A, channelId: CHANNEL_A, approvers: [BOB, GRID] },
      { teamId: B, userId: DAVE, channelId: CHANNEL_B, approvers: [CAROL, GRID], remindAfterHours: 1 },
    ));
  });
  afterAll(async () => {
    await app?.stop();
    await db?.drop();
  });
  afterEach(() => expect(refusedCalls().map((c) => [c.method, c.answer?.error])).toEqual([]));

  /** What Slack refused: nothing, in any workspace (every call carries its workspace's token). */
  const refusedCalls = () => fakes.slack.failedCalls;

  /** Sends an interaction payload as Slack sends it from workspace `team` (ids it names are left as they are). */
  const interactIn = (team: string, payload: Record<string, unknown>) => app.interact(inTeam(payload, team));

  async function submitIn(team: string, view: SlackView, user: string, entries: Record<string, Entry> = {}) {
    const values = stateValues(view, entries);
    const urls = responseUrls(view, values, () => fakes.slack.responseUrl());
    const ack = await interactIn(team, viewSubmission(view, values, user, urls));
    fakes.slack.applySubmissionAck(view.id, ack);
    return ack;
  }

  /** `user` clicks `actionId` on `message` in workspace `team`; `value` forges the button's value. */
  async function clickIn(team: string, message: PostedMessage, actionId: string, user: string, value?: string) {
    const payload = buttonClick(fakes.slack, message, actionId, user);
    if (value !== undefined) (payload.actions as Array<{ value?: string }>)[0]!.value = value;
    await interactIn(team, payload);
    return payload.response_url as string;
  }

  /** What the app answered a click with (its response_url post). */
  async function answerTo(url: string): Promise<string> {
    const [answer] = await fakes.slack.waitForResponse(url);
    return textOf(answer?.body);
  }

  /** `user` asks in `team` to delete `ids` (customers the Mint service has); resolves with the request id and its message. */
  async function ask(team: string, user: string, ids: string[]) {
    for (const id of ids) fakes.mint.customers.add(id);
    const channel = team === A ? CHANNEL_A : CHANNEL_B;
    const { view } = await app.commandOpeningModal(`delete ${ids.join(' ')}`, { team_id: team, user_id: user });
    await submitIn(team, view, user, { [REASON_BLOCK]: `Ticket of ${team}` });
    const { id, post } = await requestPosted(fakes, view.id, channel);
    return { id, post, message: () => fakes.slack.message(channel, String(post.answer?.ts)) };
  }

  /** `user` opens the Approve…/Reject… modal of a request's message in `team`. */
  async function openDecision(team: string, message: PostedMessage, action: 'approve' | 'reject', user: string) {
    const opened = fakes.slack.callsTo('views.open').length;
    await clickIn(team, message, DELETIONS.buttons[action].actionId, user);
    await fakes.slack.waitFor(() => fakes.slack.callsTo('views.open').length > opened, 3_000, 'the modal');
    return fakes.slack.lastOpenedView();
  }

  async function homeOf(team: string, user: string) {
    const published = fakes.slack.callsTo('views.publish').length;
    const event = eventCallback({ type: 'app_home_opened', user, channel: 'D0HOME', tab: 'home' });
    await app.deliverEvent(inTeam(event, team));
    const call = await fakes.slack.waitFor(
      () =>
        fakes.slack
          .callsTo('views.publish')
          .slice(published)
          .find((c) => c.params.user_id === user),
      5_000,
      `the Home of ${user}`,
    );
    return { token: call.token, view: call.params.view as SlackView };
  }

  async function stored(id: string): Promise<DeletionRequest | undefined> {
    const store = app.openStore();
    try {
      return await store.deletionRequests.get(id);
    } finally {
      await store.close();
    }
  }

  /** Slack calls made since `since` (a count of calls) that carried workspace `team`'s token. */
  const callsWithTokenOf = (team: string, since: number) =>
    fakes.slack.calls.slice(since).filter((c) => c.token === token[team]);

  it('keeps each workspace’s requests, approvers, channels and token apart, and deletes with its own', async () => {
    const a = await ask(A, ALICE, ['cus_a1']);
    const b = await ask(B, DAVE, ['cus_b1', 'cus_b2']);
    expect(a.post.token).toBe(token[A]);
    expect(b.post.token).toBe(token[B]);
    expect(textOf(b.message())).toContain(`<@${CAROL}>`); // B's approvers, not A's
    expect(textOf(b.message())).not.toContain(`<@${BOB}>`);
    const dm = await fakes.slack.waitForCall(
      'chat.postMessage',
      (c) => c.params.channel === DAVE && textOf(c.params.blocks).includes(b.id),
    );
    expect(dm.token).toBe(token[B]);
    expect((await stored(b.id))?.teamId).toBe(B);

    // Bob approves in A, but is not an approver in B: B's settings decide there.
    const url = await clickIn(B, b.message(), DELETIONS.buttons.approve.actionId, BOB);
    expect(await answerTo(url)).toContain('Only the approvers of this request can decide it');

    const view = await openDecision(B, b.message(), 'approve', CAROL);
    await submitIn(B, view, CAROL);
    await fakes.slack.waitFor(
      () => textOf(b.message()).includes('*Deleted* 2 customers') && b.message(),
      8_000,
      'B’s approval message to say deleted',
    );
    expect(fakes.mint.requestsTo('delete_customers').map((r) => r.body)).toEqual([['cus_b1', 'cus_b2']]);
    const updates = fakes.slack.callsTo('chat.update').filter((c) => c.params.channel === CHANNEL_B);
    expect(updates.length).toBeGreaterThan(0);
    expect(updates.every((c) => c.token === token[B])).toBe(true);
    expect((await stored(a.id))?.status).toBe('pending');

    // Home: each workspace's own requests and setup, published with its own token.
    const homeA = await homeOf(A, GRID);
    expect(homeA.token).toBe(token[A]);
    expect(textOf(homeA.view)).toContain(a.id);
    expect(textOf(homeA.view)).toContain(`requests wait in <#${CHANNEL_A}>`);
    const c = await ask(B, DAVE, ['cus_b3']);
    const homeB = await homeOf(B, GRID);
    expect(homeB.token).toBe(token[B]);
    expect(textOf(homeB.view)).toContain(c.id);
    expect(textOf(homeB.view)).not.toContain(a.id);
    expect(textOf(homeB.view)).toContain(`requests wait in <#${CHANNEL_B}>`);
    const homeAgain = await homeOf(A, GRID);
    expect(textOf(homeAgain.view)).not.toContain(c.id);
  });

  it('refuses every button and form of workspace A that names B’s request, and reads or changes nothing of B', async () => {
    const mine = await ask(A, ALICE, ['cus_a2']);
    const theirs = await ask(B, DAVE, ['cus_b4']);
    // A failed request of B, for the retry button.
    const failing = await ask(B, DAVE, ['cus_b5']);
    fakes.mint.failNext('delete_customers', { mode: 'status', status: 400, body: { message: 'cus_b5 is locked' } });
    await submitIn(B, await openDecision(B, failing.message(), 'approve', CAROL), CAROL);
    await fakes.slack.waitFor(() => textOf(failing.message()).includes('the deletion failed'), 8_000, 'the failure');
    // Views the app opened in B for B's requests, to be replayed from A.
    const approveB = await openDecision(B, theirs.message(), 'approve', CAROL);
    const rejectB = await openDecision(B, theirs.message(), 'reject', CAROL);
    const approveA = await openDecision(A, mine.message(), 'approve', GRID);
    await app.waitForIdle();
    const before = [await stored(theirs.id), await stored(failing.id)];
    const calls = fakes.slack.calls.length;
    const patches = fakes.mint.requestsTo('delete_customers').length;

    // Buttons: each by the very person who could use it in B (so only the workspace stands in the way).
    const forgedButtons: Array<[string, string, string]> = [
      [DELETIONS.buttons.approve.actionId, CAROL, theirs.id],
      [DELETIONS.buttons.reject.actionId, CAROL, theirs.id],
      [DELETIONS.buttons.cancel.actionId, DAVE, theirs.id],
      [DELETIONS.buttons.retry.actionId, CAROL, failing.id],
    ];
    for (const [actionId, user, id] of forgedButtons) {
      const message = { channelId: CHANNEL_A, ts: '1700000000.000900', blocks: [buttonBlock(actionId, id)] };
      const answer = await answerTo(await clickIn(A, message, actionId, user, id));
      expect(answer, actionId).toMatch(NOT_FOUND);
      expect(answer).toContain(id);
    }

    // Forms: B's own decision views (signed for B's request and Carol) sent from A; and A's view re-pointed.
    for (const [view, entries] of [
      [approveB, {}],
      [rejectB, { [REJECT_REASON_BLOCK]: 'forged from A' }],
    ] as const) {
      const ack = await submitIn(A, view, CAROL, entries);
      expect(ack).toMatchObject({ response_action: 'update' });
      expect(textOf(ack)).toMatch(NOT_FOUND);
    }
    const signed = JSON.parse(String(approveA.private_metadata)) as { sig: string };
    const repointed = { ...approveA, private_metadata: JSON.stringify({ requestId: theirs.id, sig: signed.sig }) };
    expect(textOf(await submitIn(A, repointed, GRID))).toContain('This form was changed, so nothing was decided.');

    // Home and its "See all" lists in A, for people who approve or ask in B too: nothing of B.
    const home = await homeOf(A, GRID);
    expect(textOf(home.view)).toContain(mine.id);
    expect(textOf(home.view)).not.toContain(theirs.id);
    for (const [actionId, user, shown] of [
      [DELETIONS.buttons.allApprovals.actionId, GRID, mine.id],
      [DELETIONS.buttons.allOwnRequests.actionId, DAVE, undefined],
    ] as const) {
      const opened = fakes.slack.callsTo('views.open').length;
      const list = { id: 'V0HOMELIST', type: 'home', blocks: [buttonBlock(actionId, '')] };
      await interactIn(A, viewButtonClick(fakes.slack, list, actionId, {}, user));
      await fakes.slack.waitFor(() => fakes.slack.callsTo('views.open').length > opened, 3_000, 'the list');
      const listed = textOf(fakes.slack.lastOpenedView());
      if (shown) expect(listed).toContain(shown);
      expect(listed).not.toMatch(new RegExp(`${theirs.id}|${failing.id}`));
    }

    await app.waitForIdle();
    expect([await stored(theirs.id), await stored(failing.id)]).toEqual(before);
    expect(fakes.mint.requestsTo('delete_customers')).toHaveLength(patches);
    expect(callsWithTokenOf(B, calls)).toEqual([]);
    const shown = fakes.slack.calls.slice(calls).filter((c) => JSON.stringify(c.params).includes(theirs.id));
    expect(shown).toEqual([]);
  });

  it('keeps the message a request form was opened from to its workspace: a form of B sent from A loses it', async () => {
    const fromMessage = async () => {
      const opened = fakes.slack.callsTo('views.open').length;
      const message = { ts: '1763900000.000100', text: 'please delete `cus_m1`' };
      await interactIn(
        B,
        messageShortcut(
          fakes.slack,
          DELETIONS.messageShortcuts.requestFromMessage.callbackId,
          message,
          'C0BPRIVATE1',
          DAVE,
        ),
      );
      await fakes.slack.waitFor(() => fakes.slack.callsTo('views.open').length > opened, 3_000, 'the form');
      const view = fakes.slack.lastOpenedView();
      expect(textOf(view)).toContain('Asked from a message in <#C0BPRIVATE1>');
      return view;
    };
    const submitted = async (team: string, view: SlackView) => {
      await submitIn(team, view, DAVE, { [REASON_BLOCK]: 'From a message' });
      const notice = await fakes.slack.waitForCall(
        'views.update',
        (c) => c.params.view_id === view.id && textOf(c.params.view).includes('waiting for approval'),
      );
      return stored(/DR-[A-Z0-9]{6}/.exec(textOf(notice.params.view))?.[0] ?? '');
    };
    // In B, the request links the message (read with B's token).
    expect(await submitted(B, await fromMessage())).toMatchObject({ teamId: B, contextUrl: expect.any(String) });
    const permalinks = fakes.slack.callsTo('chat.getPermalink');
    expect(permalinks.map((c) => c.token)).toEqual([token[B]]);
    // The same form sent from A: a request of A (its own person asked), without B's message.
    const forged = await submitted(A, await fromMessage());
    expect(forged).toMatchObject({ teamId: A, contextUrl: undefined });
    expect(fakes.slack.callsTo('chat.getPermalink')).toHaveLength(1);
  });

  it('sweeps, reminds and ends workflow steps of each workspace with that workspace’s token', async () => {
    const a = await ask(A, ALICE, ['cus_a3']);
    const execution = await runStepIn(B, {
      customer_ids: ['cus_b6'],
      reason: 'Offboarding',
      requester: userContext(DAVE),
    });
    const post = await fakes.slack.waitForCall(
      'chat.postMessage',
      (c) => c.params.channel === CHANNEL_B && textOf(c.params.blocks).includes('Offboarding'),
    );
    const stepRequest = /DR-[A-Z0-9]{6}/.exec(textOf(post.params.blocks))?.[0] ?? '';
    expect(post.token).toBe(token[B]);
    const reminded = await ask(B, DAVE, ['cus_b7']);

    // B reminds after an hour (its own setting; A's is the default of a day): one reminder, in B, with B's token.
    await backdate(reminded.id, 'created_at', 2 * 3_600_000);
    await backdate(a.id, 'created_at', 2 * 3_600_000);
    const reminder = await fakes.slack.waitForCall(
      'chat.postMessage',
      (c) => c.params.thread_ts === reminded.post.answer?.ts && textOf(c.params.blocks).includes('*Reminder:*'),
      8_000,
    );
    expect(reminder.token).toBe(token[B]);
    expect(reminder.params.channel).toBe(CHANNEL_B);

    // The step's request expires: the sweeper shows it in B and ends the workflow step, with B's tokens (the
    // execution's own refused by then: the bot token of B).
    fakes.slack.expiredTokens.add(String(fakes.slack.executions.get(execution)?.token));
    await backdate(stepRequest, 'expires_at', 60_000);
    const ended = await fakes.slack.stepEnd(execution);
    expect(ended.state).toBe('failed');
    expect(ended.endedWith).toBe(token[B]);
    const expired = fakes.slack
      .callsTo('chat.update')
      .filter((c) => c.params.channel === CHANNEL_B && textOf(c.params.blocks).includes('*Expired*'));
    expect(expired.length).toBeGreaterThan(0);
    expect(expired.every((c) => c.token === token[B])).toBe(true);
    const told = await fakes.slack.waitForCall(
      'chat.postMessage',
      (c) => c.params.channel === DAVE && textOf(c.params.blocks).includes('*Expired*'),
    );
    expect(told.token).toBe(token[B]);
    await app.waitForIdle();
    expect(fakes.slack.threadReplies(CHANNEL_A, String(a.post.answer?.ts))).toEqual([]); // A: not due yet
    expect(refusedCalls().map((c) => c.answer?.error)).toEqual(['token_expired']);
    fakes.slack.reset(); // the refused execution token was the point
  });

  it('skips a workspace that is gone with one log line, and goes on with the others', async () => {
    const a = await ask(A, ALICE, ['cus_a4']);
    const store = app.openStore();
    const gone: string[] = [];
    try {
      for (const customer of ['cus_g1', 'cus_g2'])
        gone.push(
          (
            await store.deletionRequests.create({
              teamId: 'T0GONE0003', // never installed here (or removed while the app was down)
              requesterId: 'U0GONE0001',
              customerIds: [customer],
              duplicatesRemoved: 0,
              reason: 'left behind',
              ttlMs: -60_000,
              approvalsNeeded: 1,
              approvers: { users: [BOB], userGroups: [] },
            })
          ).id,
        );
    } finally {
      await store.close();
    }
    await backdate(a.id, 'expires_at', 60_000);
    await fakes.slack.waitFor(() => textOf(a.message()).includes('*Expired*'), 8_000, 'A’s request to expire');
    const expiredA = fakes.slack
      .callsTo('chat.update')
      .filter((c) => c.params.ts === a.post.answer?.ts && textOf(c.params.blocks).includes('*Expired*'));
    expect(expiredA.map((c) => c.token)).toEqual([token[A]]);
    await app.waitForLog((l) => l.msg === 'workspace gone: its deletion work is skipped' && l.team === 'T0GONE0003');
    for (const id of gone) await expect.poll(async () => (await stored(id))?.status).toBe('expired');
    await app.waitForIdle();
    expect(app.logLines.filter((l) => l.msg === 'workspace gone: its deletion work is skipped')).toHaveLength(1);
    expect(app.logLines.filter((l) => String(l.msg).includes('sweep failed'))).toEqual([]);
  });

  it('cancels the pending requests of a workspace that removes the app, and ends its workflow steps for good', async () => {
    const mine = await ask(A, ALICE, ['cus_a5']);
    const theirs = await ask(B, DAVE, ['cus_b8']);
    const execution = await runStepIn(B, {
      customer_ids: ['cus_b9'],
      reason: 'Workflow',
      requester: userContext(DAVE),
    });
    const stepPost = await fakes.slack.waitForCall(
      'chat.postMessage',
      (c) => c.params.channel === CHANNEL_B && textOf(c.params.blocks).includes('Workflow'),
    );
    const stepRequest = /DR-[A-Z0-9]{6}/.exec(textOf(stepPost.params.blocks))?.[0] ?? '';
    await app.waitForIdle();
    const calls = fakes.slack.calls.length;

    const pendingInB = await pendingOf(B);
    expect(pendingInB).toEqual(expect.arrayContaining([theirs.id, stepRequest]));
    const pendingInA = await pendingOf(A);
    expect(pendingInA).toContain(mine.id);

    await app.deliverEvent(uninstallPayload(B));
    await app.waitForLog((l) => l.msg === 'the app was removed from a workspace: its work is stopped');
    for (const id of pendingInB)
      expect(await stored(id)).toMatchObject({
        status: 'cancelled',
        decidedBy: 'system',
        decisionNote: 'the app was removed from the workspace',
      });
    expect(await pendingOf(A)).toEqual(pendingInA);
    const store = app.openStore();
    try {
      expect(await store.stepCompletions.resultOf(B, stepRequest)).toBe('uninstalled');
      const audit = (await store.audit.list({ teamId: B, limit: 100 })).filter(
        (e) => e.operation === 'customers.delete.cancel',
      );
      const removed = audit.filter((e) => e.detail === 'the app was removed from the workspace');
      expect(removed.map((e) => [e.inputs.requestId, e.outcome, e.actorId]).sort()).toEqual(
        pendingInB.map((id) => [id, 'cancelled', 'system']).sort(),
      );
    } finally {
      await store.close();
    }
    // Nothing is said in B (its token is gone), and no pass of the background work tries B's step again: a
    // step of A whose request ended unseen (only the background completer can end it) ends, B's does not.
    const signal = await runStepIn(A, { customer_ids: ['cus_a6'], reason: 'Signal', requester: userContext(ALICE) });
    const signalPost = await fakes.slack.waitForCall(
      'chat.postMessage',
      (c) => c.params.channel === CHANNEL_A && textOf(c.params.blocks).includes('Signal'),
    );
    const signalRequest = /DR-[A-Z0-9]{6}/.exec(textOf(signalPost.params.blocks))?.[0] ?? '';
    await runSql(db.databaseUrl, `update deletion_requests set status = 'cancelled' where id = ?`, [signalRequest]);
    expect(await fakes.slack.stepEnd(signal)).toMatchObject({ state: 'failed' });
    await app.waitForIdle();
    expect(callsWithTokenOf(B, calls)).toEqual([]);
    expect(fakes.slack.executions.get(execution)?.state).toBe('running');
  });

  /** A workflow in `team` runs the deletion step; resolves with the execution id. */
  async function runStepIn(team: string, inputs: Record<string, unknown>): Promise<string> {
    const event = fakes.slack.stepExecution(DELETIONS.steps.requestDeletion.callbackId, inputs);
    const body = inTeam(eventCallback(event), team);
    await app.deliverEvent(body);
    return String(event.function_execution_id);
  }

  /** The ids of the pending requests of a workspace, as the app's database has them. */
  async function pendingOf(team: string): Promise<string[]> {
    const store = app.openStore();
    try {
      const pending = await store.deletionRequests.forTeam(team).list({ statuses: ['pending'] });
      return pending.map((r) => r.id).sort();
    } finally {
      await store.close();
    }
  }

  /** Moves a stored time of a request into the past, as if the database had written it then. */
  const backdate = (id: string, column: 'created_at' | 'expires_at', ms: number) =>
    runSql(db.databaseUrl, `update deletion_requests set ${column} = ? where id = ?`, [
      new Date(Date.now() - ms).toISOString(),
      id,
    ]);
});

/** An actions block with one button, as a message of the app would have it. */
function buttonBlock(actionId: string, value: string) {
  return {
    type: 'actions',
    block_id: `forged_${actionId}`,
    elements: [{ type: 'button', action_id: actionId, value, text: { type: 'plain_text', text: 'Go' } }],
  };
}
