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

  // What the person is told for each is create-link.test.ts's; here, the process stays healthy after each.
  it.each([
    ['rejects the request (400)', { mode: 'status', status: 400 }],
    ['refuses the key (401)', { mode: 'status', status: 401 }],
    ['fails (500)', { mode: 'status', status: 500 }],
    ['hangs past the time budget', { mode: 'hang' }],
    ['drops the connection', { mode: 'drop' }],
  ] as const)('stays ready and takes the next form after the service %s', async (_name, failure) => {
    fakes.mint.failNext('create_link', failure);
    const { outcome } = await createLink({ [B.nftId]: 'nft-x', [B.email]: 'keep@example.com' });
    expect(outcome.callback_id).toBe('link_form');
    expect(outcome.blocks[0].text.text).toContain('*Could not create the mint link.*');
    expect(fakes.mint.requestsTo('create_link')).toHaveLength(1); // a POST is never repeated

    const ready = await fetch(`${running.app.baseUrl}/readyz`);
    expect(ready.status).toBe(200);
    fakes.slack.reset();
    const again = await createLink({ [B.nftId]: 'nft-x' });
    expect(again.outcome.title.text).toBe('Mint link created');
  });
});
