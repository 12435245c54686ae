import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { DELETIONS } from '../../../src/capabilities/deletions/actions.js';
import { REJECT_REASON_BLOCK } from '../../../src/capabilities/deletions/decision-modal.js';
import { HISTORY } from '../../../src/capabilities/history/actions.js';
import { DeletionFlow, buttonsOf } from '../../kit/deletion-flow.js';
import { useFakes, useListenerApp } from '../../kit/fakes.js';
import { modalText } from '../../kit/screen-text.js';
import { expectScreen } from '../../kit/screens.js';
import { expectNoRejectedSlackCalls, expectNoSecretsLeaked, textOf } from '../../kit/slack-checks.js';
import type { SlackView } from '../../kit/slack-payloads.js';

/*
 * A pending deletion request decided from History's Details, as Slack drives it: Approve… / Reject… shown to
 * an approver who may decide it (only), pushed over Details, counted as on the approval message (quorum, audit,
 * messages), and Details then shown again in place. Refusals (requester, non-approver, another workspace's
 * request, a stale view) are said over Details and decide nothing. Golden screens under test/screens/history/.
 */

// The sandbox's people (their names are what the goldens show).
const EVE = 'U0EVE0001'; // asks for deletions
const BEN = 'U0BEN0001'; // approver
const CHLOE = 'U0CHLOE01'; // approver
const DAN = 'U0DAN0001'; // audit viewer: sees every request, decides none
const APPROVAL = 'C0APPROVE1';

describe('deciding a deletion request from History', () => {
  const fakes = useFakes();
  const running = useListenerApp(fakes, {
    env: {
      APPROVAL_CHANNEL_ID: APPROVAL,
      DELETION_APPROVERS: `${BEN},${CHLOE}`,
      DELETION_QUORUM: '2',
      AUDIT_VIEWERS: DAN,
    },
  });
  const flow = new DeletionFlow(fakes, APPROVAL);
  // Slack refuses nothing the app asks (a hash conflict would be the app updating a view it should not).
  afterEach(() => expectNoRejectedSlackCalls(fakes.slack));
  afterAll(() => expectNoSecretsLeaked(fakes.slack, running.app));

  let seq = 0;
  /** Eve asks to delete two customers through the request form; resolves with the request id and message ts. */
  const ask = () => {
    seq += 1;
    return flow.request(running.app, [`cus_h${seq}a`, `cus_h${seq}b`], EVE, 'Asked to be forgotten');
  };

  /** `user` finds the request in History and opens its Details; resolves with the Details view as Slack keeps it. */
  async function details(user: string, requestId: string): Promise<SlackView> {
    const { fields } = await running.app.command(`history ${requestId}`, { user_id: user });
    await fakes.slack.waitForCall('views.open', (c) => c.params.trigger_id === fields.trigger_id);
    const list = fakes.slack.lastOpenedView();
    const pushes = fakes.slack.callsTo('views.push').length;
    await running.app.clickInView(list, HISTORY.buttons.details.actionId, {}, user);
    const push = await fakes.slack.waitFor(() => fakes.slack.callsTo('views.push')[pushes], 3_000, 'Details');
    const id = (push.answer?.view as { id?: string } | undefined)?.id ?? '';
    return fakes.slack.view(id);
  }

  /** `user` clicks Approve… or Reject… on a view; resolves with the view Slack pushed over it. */
  async function clickDecision(view: SlackView, action: 'approve' | 'reject', user: string): Promise<SlackView> {
    const pushes = fakes.slack.callsTo('views.push').length;
    await running.app.clickInView(view, DELETIONS.buttons[action].actionId, {}, user);
    const push = await fakes.slack.waitFor(() => fakes.slack.callsTo('views.push')[pushes], 3_000, 'a pushed view');
    return fakes.slack.view((push.answer?.view as { id?: string } | undefined)?.id ?? '');
  }

  /** The next views.update of `view` after `before` updates of it. */
  async function shownAgain(view: SlackView, before: number): Promise<SlackView> {
    await fakes.slack.waitFor(() => updatesOf(view) > before, 5_000, 'Details shown again');
    return fakes.slack.view(view.id);
  }
  const updatesOf = (view: SlackView) =>
    fakes.slack.callsTo('views.update').filter((c) => c.params.view_id === view.id).length;
  const decisionButtons = (view: SlackView) =>
    buttonsOf({ blocks: view.blocks as Array<Record<string, unknown>> }).filter(
      (id) => id === DELETIONS.buttons.approve.actionId || id === DELETIONS.buttons.reject.actionId,
    );

  it('lets each approver approve from Details: counted toward the quorum, the last one runs the deletion', async () => {
    const { id, ts } = await ask();
    const ben = await details(BEN, id);
    expect(decisionButtons(ben)).toEqual(
      expect.arrayContaining([DELETIONS.buttons.approve.actionId, DELETIONS.buttons.reject.actionId]),
    );
    await expectScreen('history/details--deletion-to-decide', modalText(ben, { viewer: BEN }));

    // Approve… pushes the same approval modal as the approval message; submitted, it closes back to Details.
    const approveModal = await clickDecision(ben, 'approve', BEN);
    expect(approveModal.callback_id).toBe(DELETIONS.forms.approve.callbackId);
    const before = updatesOf(ben);
    expect(await running.app.submitView(approveModal, {}, BEN)).toBeUndefined();
    const benAfter = await shownAgain(ben, before);
    expect(textOf(benAfter)).toContain(`Approved by <@${BEN}>`);
    expect(textOf(benAfter)).toContain(`1 more approval needed, from <@${CHLOE}>.`);
    expect(decisionButtons(benAfter)).toEqual([]);
    await flow.waitForStatus(ts, '1 of 2');
    expect(flow.patches()).toHaveLength(0);

    // Chloe's approval completes the quorum: the deletion runs once, and her Details ends showing it done.
    const chloe = await details(CHLOE, id);
    expect(textOf(chloe)).toContain(`Approved by <@${BEN}>`);
    const chloeModal = await clickDecision(chloe, 'approve', CHLOE);
    const chloeBefore = updatesOf(chloe);
    await running.app.submitView(chloeModal, {}, CHLOE);
    await fakes.slack.waitFor(
      () => updatesOf(chloe) >= chloeBefore + 2 && textOf(fakes.slack.view(chloe.id)).includes('Deleted'),
      8_000,
      'Details showing the deletion done',
    );
    const done = fakes.slack.view(chloe.id);
    expect(decisionButtons(done)).toEqual([]);
    await expectScreen('history/details--deletion-approved-from-details', modalText(done, { viewer: CHLOE }));
    await flow.waitForStatus(ts, 'Deleted');
    expect(flow.patches()).toHaveLength(1);
    expect(await flow.auditOf(running.app, id)).toEqual(
      expect.arrayContaining([
        ['customers.delete.approve', 'approval 1 of 2', BEN],
        ['customers.delete.approve', 'approved', CHLOE],
      ]),
    );
  });

  it('rejects from Details with the reason modal, and a stale Details then says so instead of deciding', async () => {
    const { id, ts } = await ask();
    const ben = await details(BEN, id);
    const chloe = await details(CHLOE, id);
    const rejectModal = await clickDecision(chloe, 'reject', CHLOE);
    expect(rejectModal.callback_id).toBe(DELETIONS.forms.reject.callbackId);
    const before = updatesOf(chloe);
    await running.app.submitView(rejectModal, { [REJECT_REASON_BLOCK]: 'Customer still has an open order' }, CHLOE);
    const rejected = await shownAgain(chloe, before);
    expect(textOf(rejected)).toContain(`*Rejected* by <@${CHLOE}>`);
    expect(textOf(rejected)).toContain('Customer still has an open order');
    expect(decisionButtons(rejected)).toEqual([]);
    // Closed with no approval: none will come, so no "yet".
    expect(textOf(rejected)).toContain('None.');
    expect(textOf(rejected)).not.toContain('None yet.');
    await expectScreen('history/details--deletion-rejected', modalText(rejected, { viewer: CHLOE }));
    await flow.waitForStatus(ts, 'Rejected');

    // Ben's Details was opened before: its Approve… now answers why not, and Details beneath shows the rejection.
    const benBefore = updatesOf(ben);
    const notice = await clickDecision(ben, 'approve', BEN);
    expect(textOf(notice)).toContain('rejected');
    expect(notice.clear_on_close).toBeUndefined(); // Back returns to Details
    const benAfter = await shownAgain(ben, benBefore);
    expect(textOf(benAfter)).toContain(`*Rejected* by <@${CHLOE}>`);
    expect(decisionButtons(benAfter)).toEqual([]);
    expect((await flow.stored(running.app, id))?.approverIds).toEqual([]);
    expect(flow.patches()).toHaveLength(0);
  });

  it('never counts one approver twice, however many decision modals their Details opened', async () => {
    const { id } = await ask();
    const ben = await details(BEN, id);
    const first = await clickDecision(ben, 'approve', BEN);
    const second = await clickDecision(ben, 'approve', BEN); // the same Details, clicked again before submitting
    const before = updatesOf(ben);
    await running.app.submitView(first, {}, BEN);
    await shownAgain(ben, before);
    const again = await running.app.submitView(second, {}, BEN);
    expect(textOf(again)).toContain('You already approved');
    // Details now offers nothing; its old Approve… delivered again (a replayed click) says why.
    expect(decisionButtons(fakes.slack.view(ben.id))).toEqual([]);
    const replayed = { ...fakes.slack.view(ben.id), blocks: ben.blocks };
    expect(textOf(await clickDecision(replayed, 'approve', BEN))).toContain('You already approved');
    await running.app.waitForIdle();
    expect((await flow.stored(running.app, id))?.approverIds).toEqual([BEN]);
  });

  it('offers no decision to the requester or to someone who is no approver, and refuses their forged clicks', async () => {
    const { id } = await ask();
    const eve = await details(EVE, id);
    expect(decisionButtons(eve)).toEqual([]);
    const dan = await details(DAN, id);
    expect(decisionButtons(dan)).toEqual([]);
    expect(textOf(dan)).toContain('Asked to be forgotten');

    // The buttons of an approver's Details, clicked by them anyway (a forged payload): refused over their Details.
    const ben = await details(BEN, id);
    // (Their own Details as Slack keeps it now: each refusal shows it again.)
    const forged = (own: SlackView) => ({ ...fakes.slack.view(own.id), blocks: ben.blocks });
    expect(textOf(await clickDecision(forged(eve), 'approve', EVE))).toContain('You asked for this deletion');
    expect(textOf(await clickDecision(forged(dan), 'approve', DAN))).toContain(
      'Only the approvers of this request can decide it',
    );
    await running.app.waitForIdle();
    const rejectByDan = await clickDecision(forged(dan), 'reject', DAN);
    expect(textOf(rejectByDan)).toContain('Only the approvers');
    await expectScreen('history/details--decision-refused', modalText(rejectByDan, { viewer: DAN }));
    await running.app.waitForIdle();
    expect((await flow.stored(running.app, id))?.approverIds).toEqual([]);
    expect((await flow.stored(running.app, id))?.status).toBe('pending');
  });

  it("refuses a decision on another workspace's request named in a forged Details", async () => {
    const store = running.app.openStore();
    const other = await store.transaction((tx) =>
      tx.deletionRequests.create({
        teamId: 'T0OTHER01',
        requesterId: EVE,
        customerIds: ['cus_elsewhere'],
        duplicatesRemoved: 0,
        reason: 'Elsewhere',
        ttlMs: 3_600_000,
        approvalsNeeded: 1,
        approvers: { users: [BEN], userGroups: [] },
      }),
    );
    await store.close();
    const { id } = await ask();
    const ben = await details(BEN, id);
    const forged = JSON.parse(JSON.stringify(ben.blocks).replaceAll(id, other.id)) as unknown[];
    const notice = await clickDecision({ ...ben, blocks: forged }, 'approve', BEN);
    expect(textOf(notice)).toContain(`${other.id} was not found in this workspace`);
    await running.app.waitForIdle();
    const after = running.app.openStore();
    expect((await after.deletionRequests.forTeam('T0OTHER01').get(other.id))?.approverIds).toEqual([]);
    await after.close();
  });

  it('does not show everything to an admin of another organization (Slack Connect)', async () => {
    const { id } = await ask();
    const history = async (user: string) => {
      const { fields } = await running.app.command(`history ${id}`, { user_id: user });
      await fakes.slack.waitForCall('views.open', (c) => c.params.trigger_id === fields.trigger_id);
      return textOf(fakes.slack.lastOpenedView());
    };
    const PARTNER = 'U0PARTNR1';
    const LOCAL_ADMIN = 'U0LOCALAD';
    fakes.slack.workspaceAdmins.add(PARTNER);
    fakes.slack.externalUsers.set(PARTNER, 'T0PARTNER');
    fakes.slack.workspaceAdmins.add(LOCAL_ADMIN);
    try {
      const partner = await history(PARTNER);
      expect(partner).toContain('What you made through the app');
      expect(partner).toContain('Nothing found');
      const local = await history(LOCAL_ADMIN);
      expect(local).toContain('Everything made through the app in this workspace');
      expect(local).toContain(id);
    } finally {
      fakes.slack.workspaceAdmins.delete(PARTNER);
      fakes.slack.workspaceAdmins.delete(LOCAL_ADMIN);
      fakes.slack.externalUsers.delete(PARTNER);
    }
  });
});
