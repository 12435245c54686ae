/*
 * The "Request deletion" workflow step over Socket Mode, end to end (function_executed in an envelope, the
 * decision's interactions too). Every behaviour of the step is in deletion-step.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DELETIONS } from '../../../src/capabilities/deletions/actions.js';
import type { RunningApp } from '../../kit/running-app.js';
import { useFakes } from '../../kit/fakes.js';
import { userContext } from '../../kit/slack-payloads.js';
import { TEST_USER_ID } from '../../kit/slack-ids.js';
import { expectNoSecretsLeaked, textOf } from '../../kit/slack-checks.js';

const APPROVAL = 'C0APPROVE';
const BOB = 'U0APPROV1'; // approver
const ENV = { APPROVAL_CHANNEL_ID: APPROVAL, DELETION_APPROVERS: BOB };

describe('the "Request deletion" workflow step (socket mode)', () => {
  const fakes = useFakes();
  let app: RunningApp;
  beforeAll(async () => {
    app = await fakes.startApp('socket', { env: ENV });
  });
  afterAll(async () => {
    expectNoSecretsLeaked(fakes.slack, app);
    await app?.stop();
  });

  it('asks for approval and completes when approved, over Socket Mode', async () => {
    const execution = await app.runStep(DELETIONS.steps.requestDeletion.callbackId, {
      customer_ids: ['cus_sm1'],
      reason: 'Offboarding workflow: customer closed the account',
      requester: userContext(TEST_USER_ID),
    });
    const post = await fakes.slack.waitForCall(
      'chat.postMessage',
      (c) => c.params.channel === APPROVAL && /DR-[A-Z0-9]{6}/.test(textOf(c.params.blocks)),
    );
    const opened = fakes.slack.callsTo('views.open').length;
    await app.click(fakes.slack.message(APPROVAL, String(post.answer?.ts)), DELETIONS.buttons.approve.actionId, BOB);
    await fakes.slack.waitFor(() => fakes.slack.callsTo('views.open').length > opened, 3_000, 'the modal');
    await app.submitView(fakes.slack.lastOpenedView(), {}, BOB);
    expect(await fakes.slack.stepEnd(execution)).toMatchObject({ state: 'completed', outputs: { customer_count: 1 } });
  });
});
