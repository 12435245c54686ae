/*
 * Creating a mint link over each transport, end to end, where the app's health is seen from outside (/readyz)
 * after each way the Mint service fails. Every behaviour of the form is in create-link.test.ts.
 */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { LINK_BLOCKS } from '../../../src/capabilities/links/link-form.js';
import { useApp, useFakes } from '../../kit/fakes.js';
import { expectNoRejectedSlackCalls, expectNoSecretsLeaked } from '../../kit/slack-checks.js';
import type { Entry } from '../../kit/view-state.js';

const B = LINK_BLOCKS;

describe.each(['http', 'socket'] as const)('create a mint link (%s mode)', (mode) => {
  const fakes = useFakes();
  const running = useApp(fakes, mode, { env: { MINT_API_TIMEOUT_MS: '800' } });

  afterEach(() => expectNoRejectedSlackCalls(fakes.slack));
  afterAll(() => expectNoSecretsLeaked(fakes.slack, running.app));

  const createLink = (entries: Record<string, Entry>) => running.app.submitFormFromCommand('link', entries);

  it.each([
    [
      'rejects the request (400)',
      { mode: 'status', status: 400, body: { message: 'NFT nft-x is sold out' } },
      'The Mint service rejected the request (HTTP 400). It said: “NFT nft-x is sold out”',
    ],
    [
      'refuses the key (401)',
      { mode: 'status', status: 401 },
      "refused the app's credentials (HTTP 401). Ask the app's operator to check MINT_API_KEY. Nothing was created.",
    ],
    [
      'does not know the NFT (404)',
      { mode: 'status', status: 404 },
      'could not find what the request refers to (HTTP 404)',
    ],
    ['fails (500)', { mode: 'status', status: 500 }, 'unavailable right now (HTTP 500). Try again in a few minutes.'],
    [
      'hangs past the time budget',
      { mode: 'hang' },
      'did not answer within 0.8 s. The mint link may have been created anyway: check before trying again.',
    ],
    [
      'drops the connection',
      { mode: 'drop' },
      'could not reach the Mint service. The mint link may have been created anyway: check before trying again.',
    ],
  ] as const)(
    'tells the user clearly when the service %s, keeps the form filled, and stays healthy',
    async (_name, failure, expected) => {
      fakes.mint.failNext('create_link', failure);
      const { outcome, dm } = await createLink({ [B.nftId]: 'nft-x', [B.email]: 'keep@example.com' });
      expect(outcome.callback_id).toBe('link_form');
      expect(outcome.blocks[0].text.text).toContain('*Could not create the mint link.*');
      expect(outcome.blocks[0].text.text).toContain(expected);
      const nft = outcome.blocks.find((b: any) => b.block_id === B.nftId);
      const email = outcome.blocks.find((b: any) => b.block_id === B.email);
      expect([nft.element.initial_value, email.element.initial_value]).toEqual(['nft-x', 'keep@example.com']);
      expect(dm.text).toContain('Could not create the mint link for NFT nft-x.');
      expect(dm.text).toContain(expected);
      expect(fakes.mint.requestsTo('create_link')).toHaveLength(1); // a POST is never repeated

      const ready = await fetch(`${running.app.baseUrl}/readyz`);
      expect(ready.status).toBe(200);
      fakes.slack.reset();
      const again = await createLink({ [B.nftId]: 'nft-x' });
      expect(again.outcome.title.text).toBe('Mint link created');
    },
  );
});
