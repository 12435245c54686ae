import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { WALLET_BLOCKS } from '../../../src/capabilities/wallets/wallet-form.js';
import type { MockFailure } from '../../../src/operator/mock-mint-api/mock-mint-service.js';
import { TEST_MINT_API_KEY } from '../../kit/app-process.js';
import type { ListenerApp } from '../../kit/listener-app.js';
import { useFakes, useListenerApp } from '../../kit/fakes.js';
import { TEST_USER_ID } from '../../kit/slack-ids.js';
import { expectNoRejectedSlackCalls, expectNoSecretsLeaked, textOf } from '../../kit/slack-checks.js';
import type { Entry } from '../../kit/view-state.js';

describe('create a wallet', () => {
  const fakes = useFakes();
  const running = useListenerApp(fakes);

  afterEach(() => expectNoRejectedSlackCalls(fakes.slack));
  afterAll(() => expectNoSecretsLeaked(fakes.slack, running.app));

  const openForm = (text = 'wallet') => running.app.commandOpeningModal(text);

  const createWallet = (entries: Record<string, Entry>, text = 'wallet') =>
    running.app.submitFormFromCommand(text, entries);

  it("opens the form with the command's trigger, prefilled with the customer ID, saying the service picks the chain", async () => {
    const { fields, open, view } = await openForm('wallet cus_77');
    expect(open.params.trigger_id).toBe(fields.trigger_id);
    expect(fakes.mint.requests).toEqual([]);
    expect(view).toMatchObject({ callback_id: 'wallet_form', title: { text: 'Create wallet' } });
    const input = (view.blocks as any[]).find((b) => b.block_id === WALLET_BLOCKS.customerId);
    expect(input).toMatchObject({ optional: true, element: { initial_value: 'cus_77' } });
    expect(input.hint.text).toContain('Leave empty to create a new user');
    expect(textOf(view)).toContain('chooses the chain');
  });

  it('opens the same form from the "Create wallet" shortcut', async () => {
    await running.app.shortcut('create_wallet');
    await fakes.slack.waitForCall('views.open');
    expect(fakes.slack.lastOpenedView().callback_id).toBe('wallet_form');
  });

  it('creates a wallet for a new user with {} and says so', async () => {
    const { ack, outcome, dm } = await createWallet({}, 'wallet');
    expect(ack).toMatchObject({ response_action: 'update' });
    const [request] = fakes.mint.requestsTo('create_wallet');
    expect(request?.body).toEqual({});
    expect(request?.headers).toEqual({
      'x-api-key': TEST_MINT_API_KEY,
      accept: '*/*',
      'content-type': 'application/json',
    });
    expect(outcome.title.text).toBe('Wallet created');
    expect(dm.text).toBe('Wallet created for a new user');
  });

  it('creates a wallet for a customer with {userId} and says so', async () => {
    const { outcome, dm } = await createWallet({ [WALLET_BLOCKS.customerId]: 'cus_42' });
    expect(fakes.mint.requestsTo('create_wallet')[0]?.body).toEqual({ userId: 'cus_42' });
    expect(textOf(outcome)).toContain('*Wallet created* for customer `cus_42`');
    expect(dm.text).toBe('Wallet created for customer cus_42');
    const store = running.app.openStore();
    try {
      expect((await store.audit.list({ operation: 'wallet.create', limit: 1 }))[0]).toMatchObject({
        actorId: TEST_USER_ID,
        inputs: { userId: 'cus_42' },
        outcome: 'succeeded',
      });
    } finally {
      await store.close();
    }
  });

  it('answers a malformed customer ID inline and calls nothing', async () => {
    const { view } = await openForm();
    const ack = await running.app.submitView(view, { [WALLET_BLOCKS.customerId]: 'not an id' });
    expect(ack).toEqual({
      response_action: 'errors',
      errors: { [WALLET_BLOCKS.customerId]: expect.stringContaining('"not an id" is not a customer ID') },
    });
    expect(fakes.mint.requests).toEqual([]);
  });

  /** The service fails the call as `failure` says: the user is told `expected`, and the failure is recorded. */
  async function expectFailureTold(app: ListenerApp, failure: MockFailure, expected: string) {
    fakes.mint.failNext('create_wallet', failure);
    const { outcome, dm } = await app.submitFormFromCommand('wallet', { [WALLET_BLOCKS.customerId]: 'cus_9' });
    expect(outcome.callback_id).toBe('wallet_form');
    expect(outcome.blocks[0].text.text).toContain(expected);
    expect(outcome.blocks.find((b: any) => b.block_id === WALLET_BLOCKS.customerId).element.initial_value).toBe(
      'cus_9',
    );
    expect(dm.text).toContain('Could not create a wallet for customer cus_9.');
    expect(fakes.mint.requestsTo('create_wallet')).toHaveLength(1);
    const store = app.openStore();
    try {
      expect((await store.audit.list({ operation: 'wallet.create', limit: 1 }))[0]).toMatchObject({
        outcome: 'failed',
      });
    } finally {
      await store.close();
    }
  }

  it.each([
    [
      'rejects it (400)',
      { mode: 'status', status: 400, body: { message: 'customer cus_9 already has a wallet' } },
      'It said: “customer cus_9 already has a wallet”',
    ],
    ['fails (503)', { mode: 'status', status: 503 }, 'unavailable right now (HTTP 503)'],
  ] as const)('tells the user when the service %s and records the failure', async (_name, failure, expected) => {
    await expectFailureTold(running.app, failure, expected);
  });

  describe('when the service does not answer', () => {
    // An app of its own, whose Mint calls are given up soon: the other tests' answers may be slow on a busy machine.
    const hasty = useListenerApp(fakes, { env: { MINT_API_TIMEOUT_MS: '400' } });
    afterAll(() => expectNoSecretsLeaked(fakes.slack, hasty.app));

    it('tells the user when the service hangs past the time budget and records the failure', async () => {
      await expectFailureTold(
        hasty.app,
        { mode: 'hang' },
        'The wallet may have been created anyway: check before trying again.',
      );
    });
  });
});
