import { afterEach, describe, expect, it } from 'vitest';
import { LINK_BLOCKS } from '../../src/capabilities/links/link-form.js';
import { DEMO_CONTRACT_ID } from '../../src/operator/mock-mint-api/demo-templates.js';
import { useApp, useFakes } from '../kit/fakes.js';
import { freePort } from '../kit/free-port.js';
import { TEST_USER_ID } from '../kit/slack-ids.js';
import { expectNoRejectedSlackCalls, textOf } from '../kit/slack-checks.js';

/** The Mint service down, slow, failing or rate limiting: users are told, acks stay fast, /metrics shows it. */
describe('Mint service faults', () => {
  const fakes = useFakes();
  // 2 s budget: enough for a GET's two retries (0.25 s and 0.5 s backoff), short enough to wait for in tests.
  const running = useApp(fakes, 'http', { env: { MINT_API_TIMEOUT_MS: '2000' } });
  afterEach(() => expectNoRejectedSlackCalls(fakes.slack));

  const metrics = async () => (await fetch(`${running.app.baseUrl}/metrics`)).text();

  async function createLink(nftId: string) {
    const { view } = await running.app.commandOpeningModal('link');
    const started = Date.now();
    const ack = await running.app.submitView(view, { [LINK_BLOCKS.nftId]: nftId });
    const ackMs = Date.now() - started;
    return { ack, ackMs, outcome: textOf(await fakes.slack.viewUpdate(view.id)) };
  }

  async function listTemplates() {
    const started = Date.now();
    const { fields, status } = await running.app.command(`templates ${DEMO_CONTRACT_ID}`);
    const ackMs = Date.now() - started;
    const [answer] = await fakes.slack.waitForResponse(fields.response_url ?? '', 1, 8_000);
    return { status, ackMs, answer: answer?.body };
  }

  it('slow: acks at once, gives up at the time budget, and says the link may exist; no POST repeated', async () => {
    fakes.mint.latencyMs = 5_000;
    const { ackMs, outcome } = await createLink('nft-slow');
    expect(ackMs).toBeLessThan(1_000);
    expect(outcome).toContain('did not answer within 2 s. The mint link may have been created anyway');
    expect(fakes.mint.requestsTo('create_link')).toHaveLength(1);
    expect(await metrics()).toMatch(/mintlink_mint_api_calls_total\{operation="create_link",status="timeout"\} [1-9]/);
  });

  it('hanging: a templates command is acknowledged at once all the same', async () => {
    fakes.mint.failNext('list_templates', { mode: 'hang' }, 3);
    const { status, ackMs, answer } = await listTemplates();
    expect(status).toBe(200);
    expect(ackMs).toBeLessThan(1_000);
    expect(answer).toMatchObject({
      response_type: 'ephemeral',
      text: expect.stringContaining('did not answer within 2 s'),
    });
  });

  it('5xx: a POST is sent once, a GET is tried three times, both explained; /metrics counts each', async () => {
    fakes.mint.failNext('create_link', { mode: 'status', status: 503 }, 5);
    expect((await createLink('nft-503')).outcome).toContain('unavailable right now (HTTP 503)');
    expect(fakes.mint.requestsTo('create_link')).toHaveLength(1);
    fakes.mint.failNext('list_templates', { mode: 'status', status: 502 }, 5);
    expect((await listTemplates()).answer?.text).toContain('unavailable right now (HTTP 502)');
    expect(fakes.mint.requestsTo('list_templates')).toHaveLength(3);
    const text = await metrics();
    expect(text).toMatch(/mintlink_mint_api_calls_total\{operation="create_link",status="503"\} [1-9]/);
    expect(text).toMatch(/mintlink_mint_api_calls_total\{operation="list_templates",status="502"\} [1-9]/);
    // Every call is timed (the +Inf bucket counts them all, however long a loaded machine made them).
    expect(text).toMatch(
      /mintlink_mint_api_call_duration_seconds_bucket\{le="\+Inf",operation="list_templates",status="502"\} [1-9]/,
    );
  });

  it('429: a POST is not repeated, the user is told when to try again, and nothing is sent until then', async () => {
    fakes.mint.failNext('create_link', { mode: 'status', status: 429, headers: { 'retry-after': '2' } });
    expect((await createLink('nft-429')).outcome).toContain(
      'receiving too many requests. Try again in 2 seconds. Nothing was created.',
    );
    expect(fakes.mint.requestsTo('create_link')).toHaveLength(1);
    expect(await metrics()).toMatch(/mintlink_mint_api_calls_total\{operation="create_link",status="429"\} [1-9]/);
    // The service asked for 2 s of quiet: another operation at once is not sent, and the user is told why.
    const paused = await listTemplates();
    expect(String(paused.answer?.text)).toMatch(/receiving too many requests\. Try again in [12] seconds?\./);
    expect(fakes.mint.requestsTo('list_templates')).toHaveLength(0);
    expect(await metrics()).toMatch(/mintlink_mint_api_calls_total\{operation="list_templates",status="not_sent"\} 1/);
    // Once the time has passed, calls go through again.
    await new Promise((resolve) => setTimeout(resolve, 2_100));
    expect((await createLink('nft-after-429')).outcome).toContain('Mint link created');
  });

  it('down: says the service cannot be reached and that nothing was created', async () => {
    const down = await fakes.startApp('http', {
      env: { MINT_API_BASE_URL: `http://127.0.0.1:${await freePort()}`, MINT_API_TIMEOUT_MS: '500' },
    });
    try {
      const { view } = await down.commandOpeningModal('link');
      await down.submitView(view, { [LINK_BLOCKS.nftId]: 'nft-down' });
      expect(textOf(await fakes.slack.viewUpdate(view.id))).toContain(
        'The app could not reach the Mint service. Nothing was created. Try again in a moment.',
      );
      const dm = await fakes.slack.waitForCall(
        'chat.postMessage',
        (c) => c.params.channel === TEST_USER_ID && String(c.params.text).includes('nft-down'),
      );
      expect(String(dm.params.text)).toContain('could not reach the Mint service');
      expect(await (await fetch(`${down.baseUrl}/metrics`)).text()).toMatch(
        /mintlink_mint_api_calls_total\{operation="create_link",status="network"\} 1/,
      );
      expect((await fetch(`${down.baseUrl}/readyz`)).status).toBe(200); // the app itself is fine
    } finally {
      await down.stop();
    }
  });
});
