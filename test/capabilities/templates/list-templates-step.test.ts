import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { useFakes, useListenerApp } from '../../kit/fakes.js';
import { expectNoRejectedSlackCalls, expectNoSecretsLeaked } from '../../kit/slack-checks.js';
import { TEMPLATES } from '../../../src/capabilities/templates/actions.js';

describe('the "List NFT templates" workflow step', () => {
  const fakes = useFakes();
  const running = useListenerApp(fakes);

  afterEach(() => expectNoRejectedSlackCalls(fakes.slack));
  afterAll(() => expectNoSecretsLeaked(fakes.slack, running.app));

  const run = async (inputs: Record<string, unknown>) =>
    fakes.slack.stepEnd(await running.app.runStep(TEMPLATES.steps.listTemplates.callbackId, inputs));

  it('outputs the page as lines of names and IDs, its count and the total', async () => {
    const ended = await run({ contract_id: 'demo-contract', limit: 2, order: 'asc' });
    const [request] = fakes.mint.requestsTo('list_templates');
    expect(request?.url).toBe('/v1/nft/template/demo-contract?offset=0&limit=2&orderBy=asc');
    expect(ended.state).toBe('completed');
    expect(ended.outputs).toMatchObject({ count: 2, total: expect.any(Number) });
    const lines = String(ended.outputs?.templates).split('\n');
    expect(lines).toHaveLength(2);
    for (const line of lines) expect(line).toMatch(/^\d\. .+ \(ID .+\)$/);
  });

  it('uses 10 and desc when no limit and order are given', async () => {
    await run({ contract_id: 'demo-contract' });
    expect(fakes.mint.requestsTo('list_templates')[0]?.url).toBe(
      '/v1/nft/template/demo-contract?offset=0&limit=10&orderBy=desc',
    );
  });

  it.each([
    ['a limit over 50', { contract_id: 'c', limit: 51 }, '“How many” (limit) must be from 1 to 50'],
    ['an order nobody knows', { contract_id: 'c', order: 'random' }, '“Order” (order) must be asc or desc'],
    ['no contract', { limit: 5 }, '“Contract ID” (contract_id) is required'],
  ])('fails the step, naming the input, for %s, and asks nothing', async (_case, inputs, message) => {
    const ended = await run(inputs);
    expect(ended.state).toBe('failed');
    expect(ended.error).toContain(message);
    await running.app.waitForIdle();
    expect(fakes.mint.requests).toEqual([]);
  });

  it('says which contract the service does not know', async () => {
    const ended = await run({ contract_id: 'no-such-contract' });
    expect(ended.error).toBe(
      "The Mint service does not know contract no-such-contract (HTTP 404). Check the step's “Contract ID” input.",
    );
  });

  it.each([
    [{ mode: 'status' as const, status: 502 }, 'unavailable right now (HTTP 502)'],
    [{ mode: 'status' as const, status: 401 }, 'check MINT_API_KEY'],
  ])('fails with what to do when the Mint service fails (%o)', async (failure, message) => {
    fakes.mint.failNext('list_templates', failure, 3);
    const ended = await run({ contract_id: 'demo-contract' });
    expect(ended.state).toBe('failed');
    expect(ended.error).toContain(message);
  });

  describe('when the Mint service never answers', () => {
    // An app of its own, whose Mint calls are given up soon: the other tests' answers may be slow on a busy machine.
    const hasty = useListenerApp(fakes, { env: { MINT_API_TIMEOUT_MS: '100' } });
    afterAll(() => expectNoSecretsLeaked(fakes.slack, hasty.app));

    it('fails the step, saying to try again in a moment', async () => {
      fakes.mint.failNext('list_templates', { mode: 'hang' }, 3);
      const id = await hasty.app.runStep(TEMPLATES.steps.listTemplates.callbackId, { contract_id: 'demo-contract' });
      const ended = await fakes.slack.stepEnd(id);
      expect(ended.state).toBe('failed');
      expect(ended.error).toContain('Try again in a moment');
    });
  });
});
