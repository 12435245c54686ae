import { expect } from 'vitest';
import { DELETIONS } from '../../src/capabilities/deletions/actions.js';
import { REASON_BLOCK } from '../../src/capabilities/deletions/deletion-request-form.js';
import type { SlackDriver } from './slack-driver.js';
import type { Fakes } from './fakes.js';
import { textOf } from './slack-checks.js';

/**
 * A submitted request form's outcome: the modal updated to say the request waits for approval (its id read there),
 * and the approval message posted in `channel` (not in a thread).
 */
export async function requestPosted(fakes: Fakes, viewId: string, channel: string) {
  const notice = await fakes.slack.waitForCall(
    'views.update',
    (c) => c.params.view_id === viewId && textOf(c.params.view).includes('waiting for approval'),
  );
  const id = /DR-[A-Z0-9]{6}/.exec(textOf(notice.params.view))?.[0] ?? '';
  const post = await fakes.slack.waitForCall(
    'chat.postMessage',
    (c) => c.params.channel === channel && !c.params.thread_ts && textOf(c.params.blocks).includes(id),
  );
  return { id, post };
}

/** The deletion flow driven as the people in it would, on one app or several sharing a database. */
export class DeletionFlow {
  constructor(
    readonly fakes: Fakes,
    readonly approvalChannel: string,
  ) {}

  /**
   * `user` asks to delete `ids` through `app`; resolves with the request id and its approval message's ts.
   * The customers exist in the fake Mint service (so a deletion deletes them all) unless `existing` is false:
   * then only those the test made exist, and the service answers the others as not found.
   */
  async request(
    app: SlackDriver,
    ids: string[],
    user: string,
    reason = 'GDPR erasure requests #42',
    { existing = true }: { existing?: boolean } = {},
  ) {
    if (existing) for (const id of ids) this.fakes.mint.customers.add(id);
    const { view } = await app.commandOpeningModal(`delete ${ids.join(' ')}`, { user_id: user });
    expect(await app.submitView(view, { [REASON_BLOCK]: reason }, user)).toMatchObject({ response_action: 'update' });
    const { id, post } = await requestPosted(this.fakes, view.id, this.approvalChannel);
    return { id, ts: String(post.answer?.ts) };
  }

  approvalMessage(ts: string) {
    return this.fakes.slack.message(this.approvalChannel, ts);
  }

  /** Opens the Approve…/Reject… modal of the approval message as `user`. */
  async openDecision(app: SlackDriver, ts: string, action: 'approve' | 'reject', user: string) {
    const opened = this.fakes.slack.callsTo('views.open').length;
    await app.click(this.approvalMessage(ts), DELETIONS.buttons[action].actionId, user);
    await this.fakes.slack.waitFor(
      () => this.fakes.slack.callsTo('views.open').length > opened,
      3_000,
      'the decision modal',
    );
    return this.fakes.slack.lastOpenedView();
  }

  /** `user` approves through `app`; resolves with the modal's answer. */
  async approve(app: SlackDriver, ts: string, user: string) {
    const view = await this.openDecision(app, ts, 'approve', user);
    return app.submitView(view, {}, user);
  }

  async waitForStatus(ts: string, text: string, timeoutMs = 8_000) {
    return this.fakes.slack.waitFor(
      () => textOf(this.approvalMessage(ts)).includes(text) && this.approvalMessage(ts),
      timeoutMs,
      `the approval message to say "${text}"`,
    );
  }

  patches() {
    return this.fakes.mint.requestsTo('delete_customers');
  }

  /** The thread replies that are reminders. */
  reminders(ts: string) {
    return this.fakes.slack.threadReplies(this.approvalChannel, ts).filter((m) => textOf(m).includes('*Reminder:*'));
  }

  /** The deletion entries of the audit log about request `id`, oldest first: [operation, outcome, actor]. */
  async auditOf(app: SlackDriver, id: string) {
    const store = app.openStore();
    try {
      return (await store.audit.list({ limit: 200 }))
        .filter((e) => e.operation.startsWith('customers.delete') && JSON.stringify(e.inputs).includes(id))
        .reverse()
        .map((e) => [e.operation, e.outcome, e.actorId]);
    } finally {
      await store.close();
    }
  }

  async stored(app: SlackDriver, id: string) {
    const store = app.openStore();
    try {
      return await store.deletionRequests.get(id);
    } finally {
      await store.close();
    }
  }
}

export const buttonsOf = (message: { blocks?: Array<Record<string, any>> }) =>
  (message.blocks ?? [])
    .filter((b) => b.type === 'actions')
    .flatMap((b) => (b.elements as Array<{ action_id: string }>).map((e) => e.action_id));
