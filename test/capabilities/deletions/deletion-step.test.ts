import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DELETIONS } from '../../../src/capabilities/deletions/actions.js';
import { REJECT_REASON_BLOCK } from '../../../src/capabilities/deletions/decision-modal.js';
import type { ListenerApp } from '../../kit/listener-app.js';
import { useFakes, type Fakes } from '../../kit/fakes.js';
import { userContext } from '../../kit/slack-payloads.js';
import { randomBytes } from 'node:crypto';
import { runSql } from '../../kit/raw-sql.js';
import { sealedInFirstFormat } from '../../kit/sealed-step-token.js';
import { TEST_TEAM_ID, TEST_USER_ID } from '../../kit/slack-ids.js';
import { expectNoRejectedSlackCalls, expectNoSecretsLeaked, textOf } from '../../kit/slack-checks.js';
import { describeEachEngine, type TestDatabase } from '../../kit/store-engines.js';

const APPROVAL = 'C0APPROVE';
const ALICE = TEST_USER_ID; // the workflow asks on her behalf
const BOB = 'U0APPROV1'; // approver
const ENV = { APPROVAL_CHANNEL_ID: APPROVAL, DELETION_APPROVERS: BOB };

/** A workflow runs the deletion step; people decide in Slack; the step ends when the request does. */
class WorkflowDeletion {
  constructor(
    readonly fakes: Fakes,
    readonly databaseUrl: string,
  ) {}

  start(extra: Record<string, string> = {}): Promise<ListenerApp> {
    return this.fakes.startListenerApp({
      env: { ...ENV, DATABASE_URL: this.databaseUrl, ...extra },
      slackRetryWaitMs: 5, // a report Slack had trouble with: that it is tried again matters here, not the wait
    });
  }

  /** Runs the step; resolves with the execution id, the request id and its approval message's ts. */
  async ask(app: ListenerApp, ids: string[], reason = 'Offboarding workflow: customer closed the account') {
    const execution = await app.runStep(DELETIONS.steps.requestDeletion.callbackId, {
      customer_ids: ids,
      reason,
      requester: userContext(ALICE),
    });
    const post = await this.fakes.slack.waitForCall(
      'chat.postMessage',
      (c) => c.params.channel === APPROVAL && /DR-[A-Z0-9]{6}/.test(textOf(c.params.blocks)),
    );
    const requestId = /DR-[A-Z0-9]{6}/.exec(textOf(post.params.blocks))?.[0] ?? '';
    return { execution, requestId, ts: String(post.answer?.ts) };
  }

  message(ts: string) {
    return this.fakes.slack.message(APPROVAL, ts);
  }

  /** `user` clicks Approve… or Reject… and submits the modal (with a reason for a rejection). */
  async decide(app: ListenerApp, ts: string, decision: 'approve' | 'reject', user = BOB, reason?: string) {
    const opened = this.fakes.slack.callsTo('views.open').length;
    await app.click(this.message(ts), DELETIONS.buttons[decision].actionId, user);
    await this.fakes.slack.waitFor(() => this.fakes.slack.callsTo('views.open').length > opened, 3_000, 'the modal');
    const view = this.fakes.slack.lastOpenedView();
    await app.submitView(view, reason ? { [REJECT_REASON_BLOCK]: reason } : {}, user);
  }

  execution(id: string) {
    return this.fakes.slack.executions.get(id);
  }
}

describeEachEngine('the "Request deletion" workflow step', (_engine, create) => {
  const fakes = useFakes();
  let db: TestDatabase;
  let flow: WorkflowDeletion;
  let app: ListenerApp;
  const extraApps: ListenerApp[] = [];

  beforeAll(async () => {
    db = await create();
    flow = new WorkflowDeletion(fakes, db.databaseUrl);
    app = await flow.start();
  });
  afterAll(async () => {
    expectNoSecretsLeaked(fakes.slack, app);
    await app?.stop();
    await db?.drop();
  });
  afterEach(async () => {
    expectNoRejectedSlackCalls(fakes.slack);
    for (const extra of extraApps.splice(0)) await extra.stop();
  });

  it('goes through the approval message and stays running until an approver approves; then it completes', async () => {
    const { execution, requestId, ts } = await flow.ask(app, ['cus_w1', 'cus_w2', 'cus_w1']);
    expect(textOf(flow.message(ts))).toContain('Asked by a Workflow Builder workflow on behalf of <@U0ALICE01>');
    expect(textOf(flow.message(ts))).toContain('*Reason:* Offboarding workflow');
    // The same DM with Cancel as a request made in Slack.
    await fakes.slack.waitForCall(
      'chat.postMessage',
      (c) => c.params.channel === ALICE && textOf(c.params.blocks).includes(requestId),
    );
    await app.waitForIdle();
    expect(flow.execution(execution)?.state).toBe('running');

    await flow.decide(app, ts, 'approve');
    const ended = await fakes.slack.stepEnd(execution);
    expect(ended).toMatchObject({
      state: 'completed',
      outputs: {
        status: 'approved and done',
        request_id: requestId,
        customer_count: 2,
        approver: BOB,
        approvers: [BOB],
      },
    });
    expect(ended.endedWith).toBe(ended.token); // its own execution token, unsealed from the database
    expect(fakes.mint.requestsTo('delete_customers').map((r) => r.body)).toEqual([['cus_w1', 'cus_w2']]);

    const store = app.openStore();
    try {
      const entries = (await store.audit.list({ limit: 20 })).filter((e) =>
        JSON.stringify(e.inputs).includes(requestId),
      );
      const request = entries.find((e) => e.operation === 'customers.delete.request');
      expect(request).toMatchObject({ actorId: ALICE, origin: expect.stringMatching(/^workflow Wx/) });
    } finally {
      await store.close();
    }
  });

  it('fails with the approver and the reason when the request is rejected', async () => {
    const { execution, requestId, ts } = await flow.ask(app, ['cus_r1']);
    await flow.decide(app, ts, 'reject', BOB, 'Customer still has open orders');
    const ended = await fakes.slack.stepEnd(execution);
    expect(ended.state).toBe('failed');
    expect(ended.error).toBe(
      `Request ${requestId} was rejected by an approver (Slack user ${BOB}): Customer still has open orders Nothing was deleted.`,
    );
    expect(fakes.mint.requestsTo('delete_customers')).toEqual([]);
  });

  it('fails when the request expires without a decision (the sweeper ends it)', async () => {
    const { execution, requestId } = await flow.ask(app, ['cus_e1']);
    await runSql(db.databaseUrl, 'update deletion_requests set expires_at = ? where id = ?', [
      '2020-01-01T00:00:00.000Z',
      requestId,
    ]);
    const ended = await fakes.slack.stepEnd(execution);
    expect(ended.error).toContain(`Request ${requestId} expired without a decision after 72 hours`);
  });

  it('fails when the requester cancels it from the DM', async () => {
    const { execution, requestId } = await flow.ask(app, ['cus_c1']);
    const dm = await fakes.slack.waitForCall(
      'chat.postMessage',
      (c) => c.params.channel === ALICE && textOf(c.params.blocks).includes(requestId),
    );
    await app.click(
      fakes.slack.message(String(dm.answer?.channel), String(dm.answer?.ts)),
      DELETIONS.buttons.cancel.actionId,
      ALICE,
    );
    const ended = await fakes.slack.stepEnd(execution);
    expect(ended.error).toBe(`Request ${requestId} was cancelled by its requester. Nothing was deleted.`);
  });

  it("fails with the service's answer when the approved deletion fails", async () => {
    fakes.mint.failNext('delete_customers', { mode: 'status', status: 400, body: { message: 'cus_f1 is locked' } });
    const { execution, requestId, ts } = await flow.ask(app, ['cus_f1']);
    await flow.decide(app, ts, 'approve');
    const ended = await fakes.slack.stepEnd(execution);
    expect(ended.error).toContain(`Request ${requestId} was approved, but the deletion failed:`);
    expect(ended.error).toContain('cus_f1 is locked');
  });

  it('is completed by another app process when the one that started it has stopped', async () => {
    const first = await flow.start();
    extraApps.push(first);
    const { execution, ts } = await flow.ask(first, ['cus_p1']);
    await first.stop();
    await flow.decide(app, ts, 'approve');
    const ended = await fakes.slack.stepEnd(execution);
    expect(ended).toMatchObject({ state: 'completed', outputs: { customer_count: 1, approver: BOB } });
    expect(ended.endedWith).toBe(ended.token);
  });

  it("falls back to the bot token when the execution's token has expired meanwhile", async () => {
    const { execution, ts } = await flow.ask(app, ['cus_t1']);
    fakes.slack.expiredTokens.add(flow.execution(execution)?.token ?? '');
    await flow.decide(app, ts, 'approve');
    const ended = await fakes.slack.stepEnd(execution);
    expect(ended.state).toBe('completed');
    expect(ended.endedWith).toBe(fakes.slack.botToken);
    expect(fakes.slack.failedCalls.map((c) => c.answer?.error)).toEqual(['token_expired']);
    fakes.slack.reset(); // the refused call was the point of this test
  });

  it('a step waiting across the upgrade (its token sealed the first way) is completed with its token once SECRETS_KEYS is set', async () => {
    const { execution, requestId, ts } = await flow.ask(app, ['cus_u1']);
    const token = flow.execution(execution)?.token ?? '';
    // As the version before stored it: sealed with a key derived from the bot token, in its own format.
    await runSql(db.databaseUrl, 'update step_completions set sealed_token = ? where request_id = ?', [
      sealedInFirstFormat(app.env.SLACK_BOT_TOKEN ?? '', token),
      requestId,
    ]);
    const upgraded = await flow.start({ SECRETS_KEYS: randomBytes(32).toString('base64') });
    extraApps.push(upgraded);
    await flow.decide(upgraded, ts, 'approve');
    const ended = await fakes.slack.stepEnd(execution);
    expect(ended.state).toBe('completed');
    expect(ended.endedWith).toBe(token); // its own token opened, not the bot token's fallback
  });

  it('is completed by the background completer when Slack could not be told at first', async () => {
    const { execution, requestId, ts } = await flow.ask(app, ['cus_s1']);
    // Slack has trouble with each try of the report: the step waits for the completer's later pass.
    fakes.slack.answerNext('functions.completeSuccess', { body: { ok: false, error: 'internal_error' } }, 3);
    await flow.decide(app, ts, 'approve');
    await app.waitForLog(
      (line) => line.requestId === requestId && line.msg === 'could not complete the workflow step; will try again',
      10_000, // as long as stepEnd waits: a loaded machine takes seconds over a decision on PostgreSQL
    );
    expect(flow.execution(execution)?.state).toBe('running');
    // Its next try is made due now rather than in 30 s, as time passing would.
    await runSql(db.databaseUrl, 'update step_completions set next_try_at = null where request_id = ?', [requestId]);
    const ended = await fakes.slack.stepEnd(execution);
    expect(ended.state).toBe('completed');
    // The report's three tries were refused; the step was completed once, on the completer's pass.
    expect(fakes.slack.callsTo('functions.completeSuccess')).toHaveLength(4);
    fakes.slack.reset(); // the refused calls were the point of this test
  });

  it('keeps the execution token sealed in the database, and erases it once the step is completed', async () => {
    const { execution, requestId, ts } = await flow.ask(app, ['cus_k1']);
    const token = flow.execution(execution)?.token ?? '';
    const sealed = await sealedToken(requestId);
    expect(sealed).not.toContain(token);
    expect(sealed).toMatch(/^v1\./);
    await flow.decide(app, ts, 'approve');
    await fakes.slack.stepEnd(execution);
    await app.waitForIdle();
    expect(await sealedToken(requestId)).toBe('');
  });

  it.each([
    [
      { customer_ids: [], reason: 'r', requester: userContext(ALICE) },
      '“Customer IDs” (customer_ids): Enter at least one customer ID.',
    ],
    [
      { customer_ids: ['c1', 'bad id!'], reason: 'r', requester: userContext(ALICE) },
      '“Customer IDs” (customer_ids): "id!" is not a customer ID',
    ],
    [
      { customer_ids: ['c1'], reason: '', requester: userContext(ALICE) },
      '“Reason” (reason): Give a reason: the approvers read it.',
    ],
    [{ customer_ids: ['c1'], reason: 'r' }, '“Requested by” (requester) is required'],
  ])('fails at once, asking nobody, when an input is wrong (%o)', async (inputs, message) => {
    const execution = await app.runStep(DELETIONS.steps.requestDeletion.callbackId, inputs);
    const ended = await fakes.slack.stepEnd(execution);
    expect(ended.error).toContain(message);
    await app.waitForIdle();
    expect(fakes.slack.callsTo('chat.postMessage')).toEqual([]);
  });

  it('fails at once, saying what to do, when the approval channel does not take the request', async () => {
    fakes.slack.channelsWithoutBot.add(APPROVAL);
    try {
      const execution = await app.runStep(DELETIONS.steps.requestDeletion.callbackId, {
        customer_ids: ['c9'],
        reason: 'r',
        requester: userContext(ALICE),
      });
      const ended = await fakes.slack.stepEnd(execution);
      expect(ended.error).toMatch(
        /^Request DR-[A-Z0-9]{6} was cancelled: the approval channel did not take it \(not_in_channel\), so nothing waits for approval; ask Mintlink's operator to invite the app/,
      );
    } finally {
      fakes.slack.channelsWithoutBot.delete(APPROVAL);
      fakes.slack.reset(); // the refused post was the point of this test
    }
  });

  async function sealedToken(requestId: string): Promise<string | undefined> {
    const store = app.openStore();
    try {
      return await store.stepCompletions.sealedTokenOf(TEST_TEAM_ID, requestId);
    } finally {
      await store.close();
    }
  }
});

describe('the "Request deletion" workflow step, deletion not set up', () => {
  const fakes = useFakes();
  let app: ListenerApp;
  beforeAll(async () => {
    app = await fakes.startListenerApp();
  });
  afterAll(async () => {
    await app?.stop();
  });

  it('fails the step, saying what the operator must set', async () => {
    const execution = await app.runStep(DELETIONS.steps.requestDeletion.callbackId, {
      customer_ids: ['c1'],
      reason: 'r',
      requester: userContext(ALICE),
    });
    const ended = await fakes.slack.stepEnd(execution);
    expect(ended.error).toBe(
      "Customer deletion is not set up in Mintlink: its operator must set APPROVAL_CHANNEL_ID and DELETION_APPROVERS, or a settings admin choose them in Settings on the app's Home. Nothing was requested.",
    );
  });
});
