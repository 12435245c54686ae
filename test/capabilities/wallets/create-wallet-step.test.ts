import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { useFakes, useListenerApp } from '../../kit/fakes.js';
import { userContext } from '../../kit/slack-payloads.js';
import { TEST_USER_ID } from '../../kit/slack-ids.js';
import { expectNoRejectedSlackCalls, expectNoSecretsLeaked } from '../../kit/slack-checks.js';
import { WALLETS } from '../../../src/capabilities/wallets/actions.js';

describe('the "Create wallet" workflow step', () => {
  const fakes = useFakes();
  const running = useListenerApp(fakes);

  afterEach(() => expectNoRejectedSlackCalls(fakes.slack));
  afterAll(() => expectNoSecretsLeaked(fakes.slack, running.app));

  const run = async (inputs: Record<string, unknown>) =>
    fakes.slack.stepEnd(await running.app.runStep(WALLETS.steps.createWallet.callbackId, inputs));

  it('creates a wallet for a new user when no customer ID is given, and says so', async () => {
    const ended = await run({ acting_user: userContext(), customer_id: '' });
    expect(fakes.mint.requestsTo('create_wallet').map((r) => r.body)).toEqual([{}]);
    expect(ended).toMatchObject({
      state: 'completed',
      outputs: { new_user_created: true, summary: 'Wallet created for a new user' },
    });
  });

  it("creates the customer's wallet, audited as the workflow on behalf of the acting user", async () => {
    const ended = await run({ acting_user: userContext(), customer_id: ' cus_42 ' });
    expect(fakes.mint.requestsTo('create_wallet').map((r) => r.body)).toEqual([{ userId: 'cus_42' }]);
    expect(ended.outputs).toEqual({ new_user_created: false, summary: 'Wallet created for customer cus_42' });
    const store = running.app.openStore();
    try {
      const [entry] = await store.audit.list({ operation: 'wallet.create', limit: 1 });
      expect(entry).toMatchObject({
        actorId: TEST_USER_ID,
        outcome: 'succeeded',
        origin: expect.stringMatching(/^workflow /),
      });
    } finally {
      await store.close();
    }
  });

  it.each([
    [
      'a malformed customer ID',
      { acting_user: userContext(), customer_id: 'two words' },
      '“Customer ID” (customer_id)',
    ],
    ['no acting user', { customer_id: 'cus_1' }, '“On behalf of” (acting_user) is required'],
    [
      'a user typed in rather than set by Slack',
      { acting_user: 'U0ALICE01' },
      '“On behalf of” (acting_user) must be the person who runs the workflow',
    ],
  ])('fails the step, naming the input, for %s, and sends nothing', async (_case, inputs, message) => {
    const ended = await run(inputs);
    expect(ended.state).toBe('failed');
    expect(ended.error).toContain(message);
    await running.app.waitForIdle();
    expect(fakes.mint.requests).toEqual([]);
  });

  it.each([
    [{ mode: 'status' as const, status: 401 }, 'check MINT_API_KEY. Nothing was created.'],
    [{ mode: 'status' as const, status: 500 }, 'unavailable right now (HTTP 500)'],
    [{ mode: 'drop' as const }, 'may have been created anyway'],
    [{ mode: 'status' as const, status: 422, body: { message: 'userId taken' } }, 'It said: “userId taken”'],
  ])('fails the step with what to do when the Mint service fails (%o)', async (failure, message) => {
    fakes.mint.failNext('create_wallet', failure, 3);
    const ended = await run({ acting_user: userContext() });
    expect(ended.state).toBe('failed');
    expect(ended.error).toContain(message);
  });

  describe('when the Mint service never answers', () => {
    // An app of its own, whose Mint calls are given up soon: the other tests' answers may be slow on a busy machine.
    const hasty = useListenerApp(fakes, { env: { MINT_API_TIMEOUT_MS: '100' } });
    afterAll(() => expectNoSecretsLeaked(fakes.slack, hasty.app));

    it('fails the step, saying the wallet may have been created anyway', async () => {
      fakes.mint.failNext('create_wallet', { mode: 'hang' }, 3);
      const id = await hasty.app.runStep(WALLETS.steps.createWallet.callbackId, { acting_user: userContext() });
      const ended = await fakes.slack.stepEnd(id);
      expect(ended.state).toBe('failed');
      expect(ended.error).toContain('may have been created anyway: check before trying again');
    });
  });
});
