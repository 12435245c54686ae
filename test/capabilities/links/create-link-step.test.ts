import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { useFakes, useListenerApp } from '../../kit/fakes.js';
import { userContext } from '../../kit/slack-payloads.js';
import { TEST_USER_ID } from '../../kit/slack-ids.js';
import { expectNoRejectedSlackCalls, expectNoSecretsLeaked } from '../../kit/slack-checks.js';
import { LINKS } from '../../../src/capabilities/links/actions.js';

const seconds = (date: Date) => Math.floor(date.getTime() / 1000);
const inDays = (days: number) => new Date(Math.floor((Date.now() + days * 86_400_000) / 1000) * 1000);

describe('the "Create mint link" workflow step', () => {
  const fakes = useFakes();
  // A report Slack had trouble with: that it is tried again matters here, not the wait between.
  const running = useListenerApp(fakes, { slackRetryWaitMs: 5 });

  afterEach(() => expectNoRejectedSlackCalls(fakes.slack));
  afterAll(() => expectNoSecretsLeaked(fakes.slack, running.app));

  const run = async (inputs: Record<string, unknown>) => {
    const id = await running.app.runStep(LINKS.steps.createLink.callbackId, inputs);
    return fakes.slack.stepEnd(id);
  };

  it('creates the link with every input, outputs its URL and a summary, and audits it as the workflow', async () => {
    const start = inDays(1);
    const end = inDays(30);
    const ended = await run({
      nft_id: 'nft-wf-1',
      wallet_option: 'CUSTODIAL',
      link_type: 'GENERAL',
      email: 'ann@example.com',
      customer_ids: ['cus_1', 'cus_2'],
      max_checkout_quantity: 3,
      claim_start: seconds(start),
      claim_end: seconds(end),
      is_active: false,
      acting_user: userContext(),
    });
    expect(fakes.mint.requestsTo('create_link').map((r) => r.body)).toEqual([
      {
        nftId: 'nft-wf-1',
        walletOptions: 'CUSTODIAL',
        type: 'GENERAL',
        isActive: false,
        email: 'ann@example.com',
        customerId: ['cus_1', 'cus_2'],
        maxCheckoutQuantity: 3,
        startDate: start.toISOString(),
        endDate: end.toISOString(),
      },
    ]);
    expect(ended.state).toBe('completed');
    expect(ended.outputs?.link_url).toMatch(/^https:\/\/mint\.example\.com\/claim\/lnk_/);
    expect(ended.outputs?.summary).toBe(
      `Mint link created for NFT nft-wf-1 for customers cus_1, cus_2 and e-mail ann@example.com: ${String(ended.outputs?.link_url)}`,
    );
    // Completed with the execution's own token, as Bolt's complete() does.
    expect(ended.endedWith).toBe(fakes.slack.issuedExecutionTokens.at(-1));

    const store = running.app.openStore();
    try {
      const [entry] = await store.audit.list({ operation: 'link.create', limit: 1 });
      expect(entry).toMatchObject({
        actorId: TEST_USER_ID,
        outcome: 'succeeded',
        origin: expect.stringMatching(/^workflow Wx\d+$/),
        detail: ended.outputs?.link_url,
      });
    } finally {
      await store.close();
    }
  });

  it('uses the known values as defaults: only an NFT ID and the acting user are needed', async () => {
    const ended = await run({ nft_id: 'nft-min', acting_user: userContext(), email: '', customer_ids: [] });
    expect(ended.state).toBe('completed');
    expect(fakes.mint.requestsTo('create_link')[0]?.body).toEqual({
      nftId: 'nft-min',
      walletOptions: 'CUSTODIAL',
      type: 'GENERAL',
      isActive: true,
    });
    expect(ended.outputs?.summary).toBe(`Mint link created for NFT nft-min: ${String(ended.outputs?.link_url)}`);
  });

  it('names the first five customers in its summary and counts the others', async () => {
    const customers = Array.from({ length: 7 }, (_, i) => `cus_${i + 1}`);
    const ended = await run({ nft_id: 'nft-many', acting_user: userContext(), customer_ids: customers });
    expect(ended.outputs?.summary).toBe(
      `Mint link created for NFT nft-many for customers cus_1, cus_2, cus_3, cus_4, cus_5 and 2 more: ${String(ended.outputs?.link_url)}`,
    );
  });

  it.each([
    ['no NFT ID', { acting_user: userContext() }, '“NFT ID” (nft_id) is required'],
    ['no acting user', { nft_id: 'n' }, '“On behalf of” (acting_user) is required'],
    [
      'a wallet option nobody knows',
      { nft_id: 'n', acting_user: userContext(), wallet_option: 'GOLD' },
      '“Wallet” (wallet_option)',
    ],
    [
      'a bad email',
      { nft_id: 'n', acting_user: userContext(), email: 'not-an-email' },
      '“Recipient email” (email) must be an email address',
    ],
    [
      'a quantity of 0',
      { nft_id: 'n', acting_user: userContext(), max_checkout_quantity: 0 },
      '“Max checkout quantity” (max_checkout_quantity) must be at least 1',
    ],
    [
      'a quantity that is not whole',
      { nft_id: 'n', acting_user: userContext(), max_checkout_quantity: 1.5 },
      '(max_checkout_quantity) must be a whole number',
    ],
    [
      '20,000 customer IDs',
      { nft_id: 'n', acting_user: userContext(), customer_ids: Array.from({ length: 20_000 }, (_, i) => `c${i}`) },
      '“Customer IDs” (customer_ids) must be a list of at most 1000 items; it has 20000',
    ],
    [
      '101 customer IDs',
      { nft_id: 'n', acting_user: userContext(), customer_ids: Array.from({ length: 101 }, (_, i) => `c${i}`) },
      '“Customer IDs” (customer_ids) must hold at most 100 customer IDs (a link); it has 101',
    ],
    [
      'a malformed customer ID',
      { nft_id: 'n', acting_user: userContext(), customer_ids: ['ok_1', 'bad id'] },
      '“Customer IDs” (customer_ids)',
    ],
    [
      'an end before the start',
      { nft_id: 'n', acting_user: userContext(), claim_start: seconds(inDays(5)), claim_end: seconds(inDays(2)) },
      '“Claim ends” (claim_end) must be after the start',
    ],
    [
      'an end already past',
      { nft_id: 'n', acting_user: userContext(), claim_end: seconds(inDays(-1)) },
      '“Claim ends” (claim_end) has already passed',
    ],
    [
      'a timestamp that is not one',
      { nft_id: 'n', acting_user: userContext(), claim_start: 'soon' },
      '“Claim starts” (claim_start) must be a date and time',
    ],
  ])('fails the step, naming the input, for %s, and sends nothing', async (_case, inputs, message) => {
    const ended = await run(inputs);
    expect(ended.state).toBe('failed');
    expect(ended.error).toContain("Check the step's inputs:");
    expect(ended.error).toContain(message);
    await running.app.waitForIdle();
    expect(fakes.mint.requests).toEqual([]);
  });

  it.each([
    [{ mode: 'status' as const, status: 401 }, 'check MINT_API_KEY'],
    [{ mode: 'status' as const, status: 503 }, 'unavailable right now (HTTP 503)'],
    [
      { mode: 'status' as const, status: 400, body: { message: 'nftId unknown' } },
      'rejected the request (HTTP 400). It said: “nftId unknown”',
    ],
    [{ mode: 'drop' as const }, 'could not reach the Mint service'],
    [{ mode: 'status' as const, status: 404, body: { message: 'no such NFT' } }, '(HTTP 404). It said: “no such NFT”'],
    [{ mode: 'status' as const, status: 500, body: { message: 'see <!channel>' } }, 'It said: “see ‹!channel›”'],
  ])('fails the step with what to do when the Mint service fails (%o)', async (failure, message) => {
    fakes.mint.failNext('create_link', failure, 3);
    const ended = await run({ nft_id: 'nft-f', acting_user: userContext() });
    expect(ended.state).toBe('failed');
    expect(ended.error).toContain(message);
    expect(ended.error).not.toMatch(/&lt;|&gt;|&amp;/); // plain text, not mrkdwn escapes
  });

  it('creates the link once when Slack delivers the same execution twice', async () => {
    const event = fakes.slack.stepExecution(LINKS.steps.createLink.callbackId, {
      nft_id: 'nft-twice',
      acting_user: userContext(),
    });
    await running.app.event(event);
    await running.app.event(event);
    const ended = await fakes.slack.stepEnd(String(event.function_execution_id));
    expect(ended.state).toBe('completed');
    await running.app.waitForIdle();
    expect(fakes.mint.requestsTo('create_link')).toHaveLength(1);
    expect(fakes.slack.callsTo('functions.completeSuccess')).toHaveLength(1);
  });

  it('tells Slack again when it has trouble taking the outputs, and the step completes once', async () => {
    fakes.slack.answerNext('functions.completeSuccess', { body: { ok: false, error: 'internal_error' } });
    const ended = await run({ nft_id: 'nft-again', acting_user: userContext() });
    expect(ended.state).toBe('completed');
    expect(fakes.slack.callsTo('functions.completeSuccess')).toHaveLength(2);
    fakes.slack.reset(); // the refused call was the point of this test
  });

  it('fails the step, saying the work was done, when Slack refuses its outputs', async () => {
    fakes.slack.answerNext('functions.completeSuccess', { body: { ok: false, error: 'parameter_validation_failed' } });
    const ended = await run({ nft_id: 'nft-refused', acting_user: userContext() });
    expect(ended).toMatchObject({
      state: 'failed',
      error: expect.stringContaining("Mintlink did the work, but Slack refused the step's outputs"),
    });
    expect(fakes.mint.requestsTo('create_link')).toHaveLength(1);
    fakes.slack.reset();
  });

  describe('when the Mint service never answers', () => {
    // An app of its own, whose Mint calls are given up soon: the other tests' answers may be slow on a busy machine.
    const hasty = useListenerApp(fakes, { env: { MINT_API_TIMEOUT_MS: '100' } });
    afterAll(() => expectNoSecretsLeaked(fakes.slack, hasty.app));

    it('fails the step, saying the link may have been created anyway', async () => {
      fakes.mint.failNext('create_link', { mode: 'hang' }, 3);
      const id = await hasty.app.runStep(LINKS.steps.createLink.callbackId, {
        nft_id: 'nft-f',
        acting_user: userContext(),
      });
      const ended = await fakes.slack.stepEnd(id);
      expect(ended.state).toBe('failed');
      expect(ended.error).toContain('may have been created anyway: check before trying again');
    });
  });

  // Last: the service's Retry-After holds every later call of this app process back, as it should.
  it('fails the step with when to try again when the Mint service says to wait', async () => {
    fakes.mint.failNext('create_link', { mode: 'status', status: 429, headers: { 'retry-after': '30' } });
    const ended = await run({ nft_id: 'nft-429', acting_user: userContext() });
    expect(ended.state).toBe('failed');
    expect(ended.error).toContain('too many requests. Try again in 30 seconds');
  });
});
