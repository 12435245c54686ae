import { describe, expect, it } from 'vitest';
import { walletCreatedMessage, walletFailedMessage } from '../../../src/capabilities/wallets/wallet-views.js';

describe('wallet results', () => {
  it('escapes the reason (which quotes the service) in the notification text as in the blocks', () => {
    const failed = walletFailedMessage({ userId: 'cus_1' }, 'It said: “<!channel> & co”');
    expect(failed.text).toBe('Could not create a wallet for customer cus_1. It said: “&lt;!channel&gt; &amp; co”');
    expect(JSON.stringify(failed.blocks)).not.toMatch(/<!channel>/);
  });

  it('names the customer in the text and in code in the blocks', () => {
    const created = walletCreatedMessage({ userId: 'a&b' });
    expect(created.text).toBe('Wallet created for customer a&amp;b');
    expect(JSON.stringify(created.blocks)).toContain('`a&amp;b`');
    expect(walletCreatedMessage({}).text).toBe('Wallet created for a new user');
  });
});
