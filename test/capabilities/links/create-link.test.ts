import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { LINK_BLOCKS } from '../../../src/capabilities/links/link-form.js';
import { TEST_MINT_API_KEY } from '../../kit/app-process.js';
import { useFakes, useListenerApp } from '../../kit/fakes.js';
import { TEST_CHANNEL_ID, TEST_USER_ID } from '../../kit/slack-ids.js';
import { expectNoRejectedSlackCalls, expectNoSecretsLeaked, textOf } from '../../kit/slack-checks.js';
import type { Entry } from '../../kit/view-state.js';

const B = LINK_BLOCKS;
const inDays = (days: number, hour = 10) => {
  const d = new Date(Date.now() + days * 86_400_000);
  d.setUTCHours(hour, 0, 0, 0);
  return d;
};

describe('create a mint link', () => {
  const fakes = useFakes();
  const running = useListenerApp(fakes);

  afterEach(() => expectNoRejectedSlackCalls(fakes.slack));
  afterAll(() => expectNoSecretsLeaked(fakes.slack, running.app));

  const openForm = (text = 'link') => running.app.commandOpeningModal(text);

  const createLink = (entries: Record<string, Entry>) => running.app.submitFormFromCommand('link', entries);

  it("opens the form with the command's trigger, prefilled with the NFT ID, before any Mint call", async () => {
    const { fields, ack, open, view } = await openForm('link nft-7');
    expect(open.params.trigger_id).toBe(fields.trigger_id);
    expect(ack).toBeUndefined(); // an empty ack: the modal is the answer
    expect(fakes.mint.requests).toEqual([]);
    expect(view).toMatchObject({
      callback_id: 'link_form',
      title: { text: 'Create mint link' },
      submit: { text: 'Create' },
    });
    const nft = (view.blocks as any[]).find((b) => b.block_id === B.nftId);
    expect(nft.element.initial_value).toBe('nft-7');
    const active = (view.blocks as any[]).find((b) => b.block_id === B.active);
    expect(active.element.initial_options).toHaveLength(1);
  });

  it('opens the same form from /mintlink alone and from the "Create mint link" shortcut', async () => {
    await openForm('');
    expect(fakes.slack.lastOpenedView().callback_id).toBe('link_form');
    fakes.slack.reset();
    expect(await running.app.shortcut('create_mint_link')).toBeUndefined();
    await fakes.slack.waitForCall('views.open');
    expect(fakes.slack.lastOpenedView().callback_id).toBe('link_form');
  });

  it('tells the user when the form could not be opened in time', async () => {
    const { fields } = await running.app.command('link', { trigger_id: fakes.slack.triggerId(Date.now() - 5_000) });
    const [answer] = await fakes.slack.waitForResponse(fields.response_url ?? '');
    expect(answer?.body).toMatchObject({ response_type: 'ephemeral', text: expect.stringContaining('took too long') });
    fakes.slack.reset(); // the refused views.open was the point of this test
  });

  it.each([
    [
      'the minimum',
      { [B.nftId]: 'nft-min' },
      { nftId: 'nft-min', walletOptions: 'CUSTODIAL', type: 'GENERAL', isActive: true },
    ],
    [
      'an email only',
      { [B.nftId]: 'nft-e', [B.email]: 'ann@example.com' },
      { nftId: 'nft-e', walletOptions: 'CUSTODIAL', type: 'GENERAL', isActive: true, email: 'ann@example.com' },
    ],
    [
      'customer IDs only',
      { [B.nftId]: 'nft-c', [B.customerIds]: 'cus_1, cus_2\ncus_3  cus_4' },
      {
        nftId: 'nft-c',
        walletOptions: 'CUSTODIAL',
        type: 'GENERAL',
        isActive: true,
        customerId: ['cus_1', 'cus_2', 'cus_3', 'cus_4'],
      },
    ],
    [
      'claim dates',
      { [B.nftId]: 'nft-d', [B.claimStart]: inDays(1, 9), [B.claimEnd]: inDays(8, 17) },
      {
        nftId: 'nft-d',
        walletOptions: 'CUSTODIAL',
        type: 'GENERAL',
        isActive: true,
        startDate: inDays(1, 9).toISOString(),
        endDate: inDays(8, 17).toISOString(),
      },
    ],
    [
      'every field',
      {
        [B.nftId]: 'nft-all',
        [B.email]: 'bo@example.org',
        [B.customerIds]: 'a1 a2',
        [B.maxQuantity]: '5',
        [B.claimStart]: inDays(2),
        [B.claimEnd]: inDays(3),
        [B.active]: null,
      },
      {
        nftId: 'nft-all',
        walletOptions: 'CUSTODIAL',
        type: 'GENERAL',
        isActive: false,
        email: 'bo@example.org',
        customerId: ['a1', 'a2'],
        maxCheckoutQuantity: 5,
        startDate: inDays(2).toISOString(),
        endDate: inDays(3).toISOString(),
      },
    ],
  ])('sends exactly %s to POST /v1/link and shows the link', async (_name, entries, body) => {
    const { ack, outcome, dm } = await createLink(entries);
    expect(ack).toMatchObject({
      response_action: 'update',
      view: { blocks: [{ text: { text: expect.stringContaining('Creating the mint link') } }, expect.anything()] },
    });
    const [request] = fakes.mint.requestsTo('create_link');
    expect(request?.body).toEqual(body);
    expect(request?.headers).toEqual({
      'x-api-key': TEST_MINT_API_KEY,
      accept: '*/*',
      'content-type': 'application/json',
    });
    expect(fakes.mint.requests).toHaveLength(1);

    const url = fakes.mint.links[0]?.url as string;
    expect(outcome.title.text).toBe('Mint link created');
    expect(textOf(outcome)).toContain(`\`\`\`${url}\`\`\``);
    expect(dm.text).toBe(`Mint link created for NFT ${body.nftId}: ${url}`);
    expect(textOf(dm.blocks)).toContain(url);
    if ('customerId' in body) {
      const shown = `*Customer IDs* (${body.customerId.length}): ${body.customerId.map((id) => `\`${id}\``).join(', ')}`;
      expect(textOf(outcome)).toContain(shown);
      expect(textOf(dm.blocks)).toContain(shown);
    }
    if ('startDate' in body) {
      expect(textOf(outcome)).toContain(`<!date^${Date.parse(body.startDate) / 1000}^{date_short_pretty} at {time}|`);
    }
  });

  it('records each creation in the audit log, successful or not', async () => {
    await createLink({ [B.nftId]: 'nft-ok' });
    fakes.slack.reset();
    fakes.mint.failNext('create_link', { mode: 'status', status: 400, body: { message: 'unknown NFT' } });
    await createLink({ [B.nftId]: 'nft-bad' });
    const store = running.app.openStore();
    try {
      const [failed, succeeded] = await store.audit.list({ operation: 'link.create', limit: 2 });
      expect(succeeded).toMatchObject({
        actorId: TEST_USER_ID,
        outcome: 'succeeded',
        inputs: { nftId: 'nft-ok', walletOptions: 'CUSTODIAL' },
        detail: expect.stringMatching(/^https:\/\//),
      });
      expect(failed).toMatchObject({
        actorId: TEST_USER_ID,
        outcome: 'failed',
        inputs: { nftId: 'nft-bad' },
        detail: 'The Mint service answered 400: unknown NFT',
      });
    } finally {
      await store.close();
    }
  });

  it.each([
    ['a missing NFT ID', { [B.nftId]: null }, [B.nftId]],
    ['a malformed email', { [B.nftId]: 'n', [B.email]: 'not-an-email' }, [B.email]],
    ['malformed customer IDs', { [B.nftId]: 'n', [B.customerIds]: 'ok b@d!' }, [B.customerIds]],
    ['duplicate customer IDs', { [B.nftId]: 'n', [B.customerIds]: 'c1 c1' }, [B.customerIds]],
    ['quantity 0', { [B.nftId]: 'n', [B.maxQuantity]: '0' }, [B.maxQuantity]],
    ['a negative quantity', { [B.nftId]: 'n', [B.maxQuantity]: '-1' }, [B.maxQuantity]],
    ['a fractional quantity', { [B.nftId]: 'n', [B.maxQuantity]: '2.5' }, [B.maxQuantity]],
    [
      'an end not after the start',
      { [B.nftId]: 'n', [B.claimStart]: inDays(3), [B.claimEnd]: inDays(2) },
      [B.claimEnd],
    ],
    ['an end in the past', { [B.nftId]: 'n', [B.claimEnd]: inDays(-1) }, [B.claimEnd]],
    [
      'everything wrong at once',
      { [B.nftId]: null, [B.email]: 'x@', [B.customerIds]: 'a a', [B.maxQuantity]: '0', [B.claimEnd]: inDays(-2) },
      [B.nftId, B.email, B.customerIds, B.maxQuantity, B.claimEnd],
    ],
  ])('answers %s inline on the right blocks, and calls nothing', async (_name, entries, blocks) => {
    const { view } = await openForm();
    const ack = await running.app.submitView(view, entries);
    expect(ack?.response_action).toBe('errors');
    expect(Object.keys(ack?.errors as object).sort()).toEqual([...blocks].sort());
    await running.app.waitForIdle();
    expect(fakes.mint.requests).toEqual([]);
    expect(fakes.slack.callsTo('views.update')).toEqual([]);
    expect(fakes.slack.callsTo('chat.postMessage')).toEqual([]);
  });

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
      'drops the connection',
      { mode: 'drop' },
      'could not reach the Mint service. The mint link may have been created anyway: check before trying again.',
    ],
  ] as const)(
    'tells the user clearly when the service %s, keeps the form filled, and takes the next form (its /readyz: create-link.e2e)',
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

      fakes.slack.reset();
      const again = await createLink({ [B.nftId]: 'nft-x' });
      expect(again.outcome.title.text).toBe('Mint link created');
    },
  );

  describe('when the service does not answer', () => {
    // An app of its own, whose Mint calls are given up after 0.4 s: the other tests' answers may take longer than
    // that on a busy machine.
    const hasty = useListenerApp(fakes, { env: { MINT_API_TIMEOUT_MS: '400' } });
    afterAll(() => expectNoSecretsLeaked(fakes.slack, hasty.app));

    it('tells the user clearly when the service hangs past the time budget, keeps the form filled, and sends one POST', async () => {
      fakes.mint.failNext('create_link', { mode: 'hang' });
      const { outcome, dm } = await hasty.app.submitFormFromCommand('link', {
        [B.nftId]: 'nft-x',
        [B.email]: 'keep@example.com',
      });
      const expected =
        'did not answer within 0.4 s. The mint link may have been created anyway: check before trying again.';
      expect(outcome.blocks[0].text.text).toContain('*Could not create the mint link.*');
      expect(outcome.blocks[0].text.text).toContain(expected);
      const email = outcome.blocks.find((b: any) => b.block_id === B.email);
      expect(email.element.initial_value).toBe('keep@example.com');
      expect(dm.text).toContain(expected);
      expect(fakes.mint.requestsTo('create_link')).toHaveLength(1); // a POST is never repeated
    });
  });

  it('sends the result as a DM in the channel-independent app DM, not in the channel', async () => {
    const { dm } = await createLink({ [B.nftId]: 'nft-dm' });
    expect(dm.channel).toBe(TEST_USER_ID);
    expect(fakes.slack.calls.some((c) => c.params.channel === TEST_CHANNEL_ID)).toBe(false);
  });
});

describe('create a mint link, delivered twice', () => {
  const fakes = useFakes();
  const running = useListenerApp(fakes);

  it('sends one POST, and shows one outcome, when the same submission arrives twice at once', async () => {
    const { view } = await running.app.commandOpeningModal('link');
    const acks = await Promise.all([1, 2].map(() => running.app.submitView(view, { nft_id: 'nft-double-click' })));
    await running.app.waitForIdle();
    expect(fakes.mint.requestsTo('create_link')).toHaveLength(1);
    expect(acks.map((ack) => JSON.stringify(ack).includes('Creating the mint link'))).toEqual([true, true]);
    expect(fakes.slack.callsTo('views.update').filter((c) => c.params.view_id === view.id)).toHaveLength(1);
    // Another form, or the same one with other values, is a new submission.
    const { view: again } = await running.app.commandOpeningModal('link');
    await running.app.submitView(again, { nft_id: 'nft-double-click-2' });
    await running.app.waitForIdle();
    expect(fakes.mint.requestsTo('create_link')).toHaveLength(2);
  });
});
