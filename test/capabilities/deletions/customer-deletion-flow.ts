/*
 * The customer deletion flow of customer-deletion.test.ts (fast tier) and customer-deletion.e2e.test.ts (where a
 * process is the point): the people, the settings, and the flow driven as they would.
 */
import { expect } from 'vitest';
import { DELETIONS } from '../../../src/capabilities/deletions/actions.js';
import { REASON_BLOCK } from '../../../src/capabilities/deletions/deletion-request-form.js';
import type { SlackDriver } from '../../kit/slack-driver.js';
import type { Fakes } from '../../kit/fakes.js';
import { textOf } from '../../kit/slack-checks.js';
import type { TestDatabase } from '../../kit/store-engines.js';
import { TEST_USER_ID } from '../../kit/slack-ids.js';

export const APPROVAL = 'C0APPROVE';
export const ALICE = TEST_USER_ID; // asks
export const BOB = 'U0APPROV1'; // approver by id
export const CAROL = 'U0CAROL03'; // approver through the user group
export const MALLORY = 'U0MALLORY'; // nobody
export const GROUP = 'S0GROUP01';
export const DELETION_ENV = {
  APPROVAL_CHANNEL_ID: APPROVAL,
  DELETION_APPROVERS: `${BOB},${GROUP}`,
};

/** Drives the deletion flow as the people in it would, through one app (or several on one database). */
export class Deletion {
  constructor(
    readonly fakes: Fakes,
    readonly db: TestDatabase,
  ) {}

  /** The app on this database, in the test's process (the fast tier). */
  start(extra: Record<string, string | undefined> = {}) {
    return this.fakes.startListenerApp({ env: this.env(extra) });
  }

  /** The app on this database as a process of its own, where a crash or a second process is the point. */
  startProcess(extra: Record<string, string | undefined> = {}) {
    return this.fakes.startProcess('http', { env: this.env(extra) });
  }

  private env(extra: Record<string, string | undefined>) {
    return { ...DELETION_ENV, DATABASE_URL: this.db.databaseUrl, ...extra };
  }

  /** `user` asks to delete `ids` (customers the Mint service has); resolves with the request id and its message. */
  async request(app: SlackDriver, ids: string[], user = ALICE, reason = 'GDPR erasure requests #42') {
    for (const id of ids) this.fakes.mint.customers.add(id);
    const { view } = await app.commandOpeningModal(`delete ${ids.join(' ')}`, { user_id: user });
    const ack = await app.submitView(view, { [REASON_BLOCK]: reason }, user);
    expect(ack).toMatchObject({ response_action: 'update' });
    const notice = await this.fakes.slack.waitForCall(
      'views.update',
      (c) => c.params.view_id === view.id && textOf(c.params.view).includes('waiting for approval'),
    );
    const id = /DR-[A-Z0-9]{6}/.exec(textOf(notice.params.view))?.[0] ?? '';
    const post = await this.fakes.slack.waitForCall(
      'chat.postMessage',
      (c) => c.params.channel === APPROVAL && textOf(c.params.blocks).includes(id),
    );
    return { id, ts: String(post.answer?.ts), notice: textOf(notice.params.view) };
  }

  approvalMessage(ts: string) {
    return this.fakes.slack.message(APPROVAL, ts);
  }

  /** Clicks a button of the approval message as `user`; resolves with the modal it opened, if any. */
  async click(app: SlackDriver, ts: string, action: string, user: string): Promise<string> {
    return app.click(this.approvalMessage(ts), action, user);
  }

  async openDecision(app: SlackDriver, ts: string, action: 'approve' | 'reject', user: string) {
    const opened = this.fakes.slack.callsTo('views.open').length;
    await this.click(app, ts, DELETIONS.buttons[action].actionId, user);
    await this.fakes.slack.waitFor(
      () => this.fakes.slack.callsTo('views.open').length > opened,
      3_000,
      'the decision modal',
    );
    return this.fakes.slack.lastOpenedView();
  }

  async approve(app: SlackDriver, ts: string, user = BOB) {
    const view = await this.openDecision(app, ts, 'approve', user);
    return { view, ack: await app.submitView(view, {}, user) };
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

  async audit(app: SlackDriver) {
    const store = app.openStore();
    try {
      return (await store.audit.list({ limit: 100 }))
        .filter((e) => e.operation.startsWith('customers.delete'))
        .reverse();
    } finally {
      await store.close();
    }
  }

  async status(app: SlackDriver, id: string) {
    const store = app.openStore();
    try {
      return (await store.deletionRequests.get(id))?.status;
    } finally {
      await store.close();
    }
  }
}

export { buttonsOf } from '../../kit/deletion-flow.js';
