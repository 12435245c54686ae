import { afterAll, describe, expect, it } from 'vitest';
import { DELETIONS } from '../../../../src/capabilities/deletions/actions.js';
import { useFakes, useListenerApp } from '../../../kit/fakes.js';
import { userContext } from '../../../kit/slack-payloads.js';
import { expectNoSecretsLeaked } from '../../../kit/slack-checks.js';
import { WALLETS } from '../../../../src/capabilities/wallets/actions.js';
import { TEMPLATES } from '../../../../src/capabilities/templates/actions.js';
import { LINKS } from '../../../../src/capabilities/links/actions.js';

/**
 * Every step's end is reported through one path (pipeline/step-listener.ts → workflow-steps/report-step.ts): when the
 * execution's token is refused by the time the work is done, the bot token ends the step, so no workflow is
 * left running for ever. (The deletion step's later completion has its own case in deletion-step.test.ts.)
 */
describe('a step whose execution token expired before it ended', () => {
  const fakes = useFakes();
  const running = useListenerApp(fakes);

  afterAll(() => expectNoSecretsLeaked(fakes.slack, running.app));

  it.each([
    [
      'Create mint link',
      LINKS.steps.createLink.callbackId,
      { nft_id: 'nft-exp', acting_user: userContext() },
      'completed',
    ],
    [
      'Create wallet',
      WALLETS.steps.createWallet.callbackId,
      { acting_user: userContext(), customer_id: 'cus_exp' },
      'completed',
    ],
    [
      'List NFT templates',
      TEMPLATES.steps.listTemplates.callbackId,
      { contract_id: 'demo-contract', limit: 2 },
      'completed',
    ],
    // Ends at once (an input refused), through the same listener as the others.
    ['Request deletion', DELETIONS.steps.requestDeletion.callbackId, { requester: userContext() }, 'failed'],
  ])('"%s" is ended with the bot token', async (_name, callbackId, inputs, state) => {
    const event = fakes.slack.stepExecution(callbackId, inputs);
    const executionId = String(event.function_execution_id);
    fakes.slack.expiredTokens.add(String(event.bot_access_token));
    await running.app.event(event);

    const ended = await fakes.slack.stepEnd(executionId);
    expect(ended.state).toBe(state);
    expect(ended.endedWith).toBe(fakes.slack.botToken);
    // Tried once with the execution's token, which Slack refused; never given up.
    expect(fakes.slack.failedCalls.map((call) => call.answer?.error)).toEqual(['token_expired']);
  });
});
