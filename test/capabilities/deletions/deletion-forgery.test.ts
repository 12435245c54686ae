import { requestPosted } from '../../kit/deletion-flow.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DELETIONS } from '../../../src/capabilities/deletions/actions.js';
import { REASON_BLOCK, idsBlock } from '../../../src/capabilities/deletions/deletion-request-form.js';
import { REJECT_REASON_BLOCK } from '../../../src/capabilities/deletions/decision-modal.js';
import type { ListenerApp } from '../../kit/listener-app.js';
import { useFakes } from '../../kit/fakes.js';
import { TEST_USER_ID } from '../../kit/slack-ids.js';
import type { SlackView } from '../../kit/slack-payloads.js';
import { expectNoRejectedSlackCalls, textOf } from '../../kit/slack-checks.js';

/*
 * Submissions as a modified client could send them: values past the form's limits, and decision views whose
 * private_metadata was changed. Each is refused where the user sees it, and nothing is stored or decided.
 */

const APPROVAL = 'C0APPROVE';
const ALICE = TEST_USER_ID;
const BOB = 'U0APPROV1';
const CHANGED = 'This form was changed, so nothing was decided. Open the request again.';

describe('customer deletion, forged submissions', () => {
  const fakes = useFakes();
  let app: ListenerApp;

  beforeAll(async () => {
    app = await fakes.startListenerApp({ env: { APPROVAL_CHANNEL_ID: APPROVAL, DELETION_APPROVERS: BOB } });
  });
  afterAll(async () => {
    await app?.stop();
  });
  afterEach(() => expectNoRejectedSlackCalls(fakes.slack));

  const stored = async () => {
    const store = app.openStore();
    try {
      return await store.deletionRequests.list();
    } finally {
      await store.close();
    }
  };
  const statusOf = async (id: string) => (await stored()).find((r) => r.id === id)?.status;

  /** Alice asks to delete `ids`; resolves with the request id and the ts of its approval message. */
  async function request(ids: string[]) {
    const { view } = await app.commandOpeningModal(`delete ${ids.join(' ')}`, { user_id: ALICE });
    await app.submitView(view, { [REASON_BLOCK]: 'Ticket 42' }, ALICE);
    const { id, post } = await requestPosted(fakes, view.id, APPROVAL);
    return { id, ts: String(post.answer?.ts) };
  }

  async function openDecision(ts: string, action: 'approve' | 'reject'): Promise<SlackView> {
    const opened = fakes.slack.callsTo('views.open').length;
    await app.click(fakes.slack.message(APPROVAL, ts), DELETIONS.buttons[action].actionId, BOB);
    await fakes.slack.waitFor(() => fakes.slack.callsTo('views.open').length > opened, 3_000, 'the decision modal');
    return fakes.slack.lastOpenedView();
  }

  it('refuses a 50,000-character reason inline, and stores nothing', async () => {
    const { view } = await app.commandOpeningModal('delete cus_1', { user_id: ALICE });
    const before = (await stored()).length;
    const ack = await app.submitView(view, { [REASON_BLOCK]: 'x'.repeat(50_000) }, ALICE);
    expect(ack).toEqual({
      response_action: 'errors',
      errors: { [REASON_BLOCK]: 'The reason is 50000 characters long; keep it to 1000 (the approvers read it).' },
    });
    const tooLongBox = await app.submitView(
      view,
      { [idsBlock(1)]: 'cus_1 '.repeat(600), [REASON_BLOCK]: 'Ticket 42' },
      ALICE,
    );
    expect(tooLongBox).toEqual({
      response_action: 'errors',
      errors: {
        [idsBlock(1)]: 'This box holds 3599 characters; a box takes at most 3000. Put the rest in another box.',
      },
    });
    await app.waitForIdle();
    expect((await stored()).length).toBe(before);
    expect(fakes.slack.callsTo('chat.postMessage').filter((c) => c.params.channel === APPROVAL)).toEqual([]);
  });

  it('reads no more ID boxes than the form can have, whatever its metadata says', async () => {
    const { view } = await app.commandOpeningModal('delete cus_2', { user_id: ALICE });
    const ack = await app.submitView({ ...view, private_metadata: JSON.stringify({ boxes: 1e9 }) }, {}, ALICE);
    expect(ack).toEqual({
      response_action: 'errors',
      errors: { [REASON_BLOCK]: 'Give a reason: the approvers read it.' },
    });
  });

  it('refuses a decision view whose metadata names another request: nothing is decided', async () => {
    const d = await request(['cus_d']);
    const e = await request(['cus_e']);
    const view = await openDecision(d.ts, 'approve');
    const signed = JSON.parse(view.private_metadata ?? '{}') as { requestId: string; sig: string };
    expect(signed.requestId).toBe(d.id);

    const forgeries = [
      { ...view, private_metadata: JSON.stringify({ ...signed, requestId: e.id }) }, // D's signature, E's id
      { ...view, private_metadata: JSON.stringify({ requestId: e.id }) }, // the old, unsigned shape
      { ...view, private_metadata: 'not json' },
    ];
    for (const forged of forgeries) {
      const ack = await app.submitView(forged, {}, BOB);
      expect(ack).toMatchObject({ response_action: 'update' });
      expect(textOf(ack)).toContain(CHANGED);
    }
    // A reject view's metadata does not approve either (the decision is signed too).
    const reject = await openDecision(d.ts, 'reject');
    const asApproval = await app.submitView({ ...reject, callback_id: 'deletion_approve_form' }, {}, BOB);
    expect(textOf(asApproval)).toContain(CHANGED);

    await app.waitForIdle();
    expect(await statusOf(d.id)).toBe('pending');
    expect(await statusOf(e.id)).toBe('pending');
    expect(fakes.mint.requestsTo('delete_customers')).toEqual([]);
    expect(
      app.logLines.filter((l) => l.level === 'warn' && String(l.msg).includes('did not sign')).length,
    ).toBeGreaterThanOrEqual(forgeries.length + 1);

    // The view as the app opened it still decides its own request, and only that one.
    await app.submitView(view, {}, BOB);
    await fakes.slack.waitFor(() => fakes.mint.requestsTo('delete_customers').length === 1, 5_000, 'the PATCH');
    expect(fakes.mint.requestsTo('delete_customers')[0]?.body).toEqual(['cus_d']);
    expect(await statusOf(e.id)).toBe('pending');
  });

  it('refuses a reject reason over 500 characters inline, and decides nothing', async () => {
    const { id, ts } = await request(['cus_r']);
    const view = await openDecision(ts, 'reject');
    const ack = await app.submitView(view, { [REJECT_REASON_BLOCK]: 'n'.repeat(501) }, BOB);
    expect(ack).toEqual({
      response_action: 'errors',
      errors: { [REJECT_REASON_BLOCK]: 'The reason is 501 characters long; keep it to 500.' },
    });
    await app.waitForIdle();
    expect(await statusOf(id)).toBe('pending');
    const done = await app.submitView(view, { [REJECT_REASON_BLOCK]: 'n'.repeat(500) }, BOB);
    expect(textOf(done)).toContain('*Rejected* by <@U0APPROV1>');
    expect(await statusOf(id)).toBe('rejected');
  });
});
