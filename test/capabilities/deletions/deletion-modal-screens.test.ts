import { describe, it } from 'vitest';
import { DELETIONS } from '../../../src/capabilities/deletions/actions.js';
import { REJECT_REASON_BLOCK } from '../../../src/capabilities/deletions/decision-modal.js';
import { REASON_BLOCK, idsBlock } from '../../../src/capabilities/deletions/deletion-request-form.js';
import { TEST_MINT_API_KEY } from '../../kit/running-app.js';
import { DeletionFlow } from '../../kit/deletion-flow.js';
import { useListenerApp, useFakes } from '../../kit/fakes.js';
import { ephemeralText, modalText } from '../../kit/screen-text.js';
import { expectScreen, modalScreen } from '../../kit/screens.js';
import { TEST_USER_ID } from '../../kit/slack-ids.js';
import { messageShortcut } from '../../kit/slack-payloads.js';

/*
 * The deletion request form and the approve / reject modals in each state, as the sandbox's people see them:
 * Alice asks, Ben and Chloé approve (two approvals needed), in #deletion-approvals.
 */

const ALICE = TEST_USER_ID;
const BEN = 'U0BEN0001';
const CHLOE = 'U0CHLOE01';
const APPROVALS = 'C0APPROVE1';

describe('deletion modal screens', () => {
  const fakes = useFakes();
  const running = useListenerApp(fakes, {
    env: {
      APPROVAL_CHANNEL_ID: APPROVALS,
      DELETION_APPROVERS: `${BEN},${CHLOE}`,
      DELETION_QUORUM: '2',
    },
  });
  const flow = () => new DeletionFlow(fakes, APPROVALS);
  const viewOf = (ack: Record<string, unknown> | undefined) => (ack as { view: Record<string, unknown> }).view;

  it('the request form: empty, prefilled, a second box, inline errors', async () => {
    const { view } = await running.app.commandOpeningModal('delete');
    await expectScreen('deletions/request-form--empty', modalText(view));
    const { view: prefilled } = await running.app.commandOpeningModal('delete cus_1 cus_2 cus_2');
    await expectScreen('deletions/request-form--prefilled', modalText(prefilled));

    await running.app.clickInView(view, DELETIONS.buttons.addIdsBox.actionId);
    await fakes.slack.viewUpdate(view.id);
    await expectScreen('deletions/request-form--two-boxes', modalScreen(fakes.slack, view.id));

    await running.app.submitView(view, { [idsBlock(1)]: 'ok b@d!', [REASON_BLOCK]: null });
    await expectScreen('deletions/request-form--errors', modalScreen(fakes.slack, view.id));
  });

  it('the request form from a message, prefilled with the IDs in it', async () => {
    await running.app.interact(
      messageShortcut(fakes.slack, 'request_deletion_from_message', {
        ts: '1700000000.000200',
        text: 'Please erase cus_77 and cus_78, they asked by email.',
      }),
    );
    await fakes.slack.waitForCall('views.open');
    await expectScreen('deletions/request-form--from-a-message', modalText(fakes.slack.lastOpenedView()));
  });

  it('working, then waiting for approval', async () => {
    const { view } = await running.app.commandOpeningModal('delete cus_1 cus_2');
    const ack = await running.app.submitView(view, { [REASON_BLOCK]: 'GDPR erasure request #42' });
    await expectScreen('deletions/request-modal--working', modalText(viewOf(ack)));
    await fakes.slack.viewUpdate(view.id);
    await expectScreen('deletions/request-modal--waiting-for-approval', modalScreen(fakes.slack, view.id));
  });

  it('failed: too few approvers besides the requester, and the channel refusing the request', async () => {
    const { view } = await running.app.commandOpeningModal('delete cus_1', { user_id: BEN });
    await running.app.submitView(view, { [REASON_BLOCK]: 'Asked by the customer' }, BEN);
    await fakes.slack.viewUpdate(view.id);
    await expectScreen(
      'deletions/request-modal--too-few-approvers',
      modalScreen(fakes.slack, view.id, { viewer: BEN }),
    );

    fakes.slack.channelsWithoutBot.add(APPROVALS);
    try {
      const { view: again } = await running.app.commandOpeningModal('delete cus_1');
      await running.app.submitView(again, { [REASON_BLOCK]: 'Asked by the customer' });
      await fakes.slack.viewUpdate(again.id);
      await expectScreen('deletions/request-modal--channel-refused', modalScreen(fakes.slack, again.id));
    } finally {
      fakes.slack.channelsWithoutBot.delete(APPROVALS);
    }
  });

  it('the approve modal: open, 1 of 2 recorded, deleting, done', async () => {
    // Two of the three customers exist at the Mint service (their wallets were made); the third does not.
    for (const userId of ['cus_1', 'cus_2'])
      await fetch(`${fakes.mint.url}/v1/wallet`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': TEST_MINT_API_KEY },
        body: JSON.stringify({ userId }),
      });
    const { ts } = await flow().request(running.app, ['cus_1', 'cus_2', 'cus_3'], ALICE, undefined, {
      existing: false,
    });
    const first = await flow().openDecision(running.app, ts, 'approve', BEN);
    await expectScreen('deletions/approve-modal--open', modalText(first, { viewer: BEN }));
    const recorded = await running.app.submitView(first, {}, BEN);
    await expectScreen('deletions/approve-modal--1-of-2-recorded', modalText(viewOf(recorded), { viewer: BEN }));

    const second = await flow().openDecision(running.app, ts, 'approve', CHLOE);
    await expectScreen('deletions/approve-modal--open-1-of-2', modalText(second, { viewer: CHLOE }));
    const deleting = await running.app.submitView(second, {}, CHLOE);
    await expectScreen('deletions/approve-modal--deleting', modalText(viewOf(deleting), { viewer: CHLOE }));
    await fakes.slack.viewUpdate(second.id);
    await expectScreen('deletions/approve-modal--done', modalScreen(fakes.slack, second.id, { viewer: CHLOE }));
  });

  it('the approve modal when the deletion fails', async () => {
    const { ts } = await flow().request(running.app, ['cus_9'], ALICE);
    await flow().approve(running.app, ts, BEN);
    fakes.mint.failNext('delete_customers', { mode: 'status', status: 500 });
    const view = await flow().openDecision(running.app, ts, 'approve', CHLOE);
    await running.app.submitView(view, {}, CHLOE);
    await fakes.slack.viewUpdate(view.id);
    await expectScreen('deletions/approve-modal--failed', modalScreen(fakes.slack, view.id, { viewer: CHLOE }));
  });

  it('the reject modal: open, a reason too long, rejected; and a decision someone else made first', async () => {
    const { ts } = await flow().request(running.app, ['cus_5'], ALICE);
    const approving = await flow().openDecision(running.app, ts, 'approve', CHLOE);
    const view = await flow().openDecision(running.app, ts, 'reject', BEN);
    await expectScreen('deletions/reject-modal--open', modalText(view, { viewer: BEN }));
    await running.app.submitView(view, { [REJECT_REASON_BLOCK]: 'x'.repeat(501) }, BEN);
    await expectScreen('deletions/reject-modal--errors', modalScreen(fakes.slack, view.id, { viewer: BEN }));
    const rejected = await running.app.submitView(view, { [REJECT_REASON_BLOCK]: 'Not a GDPR request' }, BEN);
    await expectScreen('deletions/reject-modal--rejected', modalText(viewOf(rejected), { viewer: BEN }));

    const late = await running.app.submitView(approving, {}, CHLOE);
    await expectScreen('deletions/approve-modal--already-rejected', modalText(viewOf(late), { viewer: CHLOE }));
  });

  it('the decision buttons used by someone who may not decide', async () => {
    const { ts } = await flow().request(running.app, ['cus_6'], ALICE);
    const url = await running.app.click(flow().approvalMessage(ts), DELETIONS.buttons.approve.actionId, 'U0EVE0001');
    const [answer] = await fakes.slack.waitForResponse(url);
    await expectScreen(
      'deletions/approve-click--not-an-approver',
      ephemeralText(answer?.body ?? {}, { viewer: 'U0EVE0001' }),
    );
  });
});
