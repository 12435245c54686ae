/*
 * Creating a wallet over each transport, end to end: the form submitted, as Slack sends it over HTTP (signed) and
 * Socket Mode. Every behaviour of the form is in create-wallet.test.ts.
 */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { WALLET_BLOCKS } from '../../../src/capabilities/wallets/wallet-form.js';
import { useApp, useFakes } from '../../kit/fakes.js';
import { TEST_USER_ID } from '../../kit/slack-ids.js';
import { expectNoRejectedSlackCalls, expectNoSecretsLeaked, textOf } from '../../kit/slack-checks.js';
import type { Entry } from '../../kit/view-state.js';

describe.each(['http', 'socket'] as const)('create a wallet (%s mode)', (mode) => {
  const fakes = useFakes();
  const running = useApp(fakes, mode, { env: { MINT_API_TIMEOUT_MS: '800' } });

  afterEach(() => expectNoRejectedSlackCalls(fakes.slack));
  afterAll(() => expectNoSecretsLeaked(fakes.slack, running.app));

  const createWallet = (entries: Record<string, Entry>, text = 'wallet') =>
    running.app.submitFormFromCommand(text, entries);

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
});
