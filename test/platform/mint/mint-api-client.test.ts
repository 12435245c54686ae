import diagnosticsChannel from 'node:diagnostics_channel';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { createSecretScrubber } from '../../../src/platform/ops/telemetry/secret-scrubber.js';
import { createMetrics } from '../../../src/platform/ops/telemetry/metrics.js';
import { MintApiClient, type MintApiClientOptions } from '../../../src/platform/mint/mint-api-client.js';
import { MintApiError } from '../../../src/platform/mint/mint-api-error.js';
import type { RetryTimer } from '../../../src/platform/mint/retry-policy.js';
import { DEMO_CONTRACT_ID, DEMO_TEMPLATE_COUNT } from '../../../src/operator/mock-mint-api/demo-templates.js';
import { MockMintService } from '../../../src/operator/mock-mint-api/mock-mint-service.js';
import { freePort } from '../../kit/free-port.js';

const API_KEY = 'mint-key-SECRET-123456';
const link = { nftId: 'n', walletOptions: 'CUSTODIAL' } as const;

let mint: MockMintService;
const clients: MintApiClient[] = [];

function client(overrides: Partial<MintApiClientOptions> = {}): MintApiClient {
  const created = new MintApiClient({
    baseUrl: mint.url,
    apiKey: API_KEY,
    timeoutMs: 2_000,
    retryBaseDelayMs: 20,
    scrub: createSecretScrubber([API_KEY]),
    ...overrides,
  });
  clients.push(created);
  return created;
}

async function failure(promise: Promise<unknown>): Promise<MintApiError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(MintApiError);
  return error as MintApiError;
}

/** A clock for the pauses the service asks for, moved by hand instead of waited for. */
function manualClock(start = Date.parse('2030-01-01T00:00:00Z')) {
  let now = start;
  return { now: () => now, advance: (ms: number) => void (now += ms) };
}

/**
 * A timer for the client's waits between tries that the test ends when it chooses: each wait asked for is kept
 * with how many calls the service had received by then, and its end.
 */
function heldWaits(received: () => number) {
  const waits: Array<{ ms: number; receivedBefore: number; end: () => void }> = [];
  const retryTimer: RetryTimer = (ms, then) => {
    waits.push({ ms, receivedBefore: received(), end: then });
    return () => undefined;
  };
  return { waits, retryTimer };
}

/** Counts undici's failed connection attempts to `port`: `first` settles at the first, a signal instead of a guess. */
function watchConnectErrors(port: number) {
  let count = 0;
  let signalFirst = () => {};
  const first = new Promise<void>((resolve) => (signalFirst = resolve));
  const onError = (message: unknown) => {
    if (Number((message as { connectParams: { port: unknown } }).connectParams.port) !== port) return;
    count += 1;
    signalFirst();
  };
  diagnosticsChannel.subscribe('undici:client:connectError', onError);
  const stop = () => diagnosticsChannel.unsubscribe('undici:client:connectError', onError);
  return { first, count: () => count, stop };
}

beforeAll(async () => {
  mint = new MockMintService({ apiKey: API_KEY });
  await mint.listen();
});
afterAll(async () => mint.close());
beforeEach(() => mint.reset());
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
});

describe('requests', () => {
  it('creates a link with exactly the given fields, the defaults, and the headers of the spec', async () => {
    const result = await client().createLink({
      nftId: 'nft-1',
      walletOptions: 'CUSTODIAL',
      email: 'a@b.co',
      customerId: ['c1', 'c2'],
    });
    const [request] = mint.requestsTo('create_link');
    expect(request?.method).toBe('POST');
    expect(request?.url).toBe('/v1/link');
    expect(request?.headers).toEqual({ 'x-api-key': API_KEY, accept: '*/*', 'content-type': 'application/json' });
    expect(request?.body).toEqual({
      nftId: 'nft-1',
      walletOptions: 'CUSTODIAL',
      email: 'a@b.co',
      customerId: ['c1', 'c2'],
      type: 'GENERAL',
      isActive: true,
    });
    expect(result).toMatchObject({ nftId: 'nft-1', url: expect.stringMatching(/^https:\/\//) });
  });

  it('creates wallets with {} or {userId}, reading 201 with no content as success', async () => {
    await expect(client().createWallet()).resolves.toBeUndefined();
    await expect(client().createWallet({ userId: 'cus_42' })).resolves.toBeUndefined();
    expect(mint.requestsTo('create_wallet').map((r) => r.body)).toEqual([{}, { userId: 'cus_42' }]);
    expect(mint.wallets).toEqual([
      expect.objectContaining({ createdUser: true }),
      { userId: 'cus_42', createdUser: false },
    ]);
  });

  it('deletes customers with a JSON array body', async () => {
    await client().createWallet({ userId: 'cus_1' });
    const result = await client().deleteCustomers(['cus_1', 'cus_2']);
    const [request] = mint.requestsTo('delete_customers');
    expect(request?.method).toBe('PATCH');
    expect(request?.url).toBe('/v1/customer/delete');
    expect(request?.body).toEqual(['cus_1', 'cus_2']);
    expect(request?.headers['content-type']).toBe('application/json');
    expect(result).toEqual({ deleted: ['cus_1'], notFound: ['cus_2'] });
  });

  it('lists templates with offset, limit and orderBy, and no body', async () => {
    const page = await client().listTemplates({ contractId: DEMO_CONTRACT_ID, offset: 20, limit: 10, orderBy: 'asc' });
    const [request] = mint.requestsTo('list_templates');
    expect(request?.url).toBe(`/v1/nft/template/${DEMO_CONTRACT_ID}?offset=20&limit=10&orderBy=asc`);
    expect(request?.headers).toEqual({ 'x-api-key': API_KEY, accept: '*/*', 'content-type': undefined });
    expect(request?.body).toBeUndefined();
    expect(page.total).toBe(DEMO_TEMPLATE_COUNT);
    expect(page.items).toHaveLength(10);
    expect(page.items[0]).toMatchObject({ id: 'tmpl_021' });
  });

  it('reads a bare array of templates (no total)', async () => {
    mint.templateShape = 'array';
    const page = await client().listTemplates({ contractId: DEMO_CONTRACT_ID, limit: 5 });
    expect(page.total).toBeUndefined();
    expect(page.items.map((t) => (t as { id: string }).id)).toEqual([
      'tmpl_123',
      'tmpl_122',
      'tmpl_121',
      'tmpl_120',
      'tmpl_119',
    ]);
  });

  it.each([
    ['../x', '..%2Fx'],
    ['a/b?c=d#e', 'a%2Fb%3Fc%3Dd%23e'],
    ['0xAbC%20', '0xAbC%2520'],
  ])('encodes the contract id %s so it cannot change the path', async (contractId, encoded) => {
    mint.contracts.set(contractId, []);
    await client().listTemplates({ contractId });
    expect(mint.requestsTo('list_templates')[0]?.url).toBe(`/v1/nft/template/${encoded}`);
  });

  it('keeps a path prefix of the base URL', async () => {
    const seen: string[] = [];
    const server: Server = createServer((req, res) => {
      seen.push(`${req.method} ${req.url}`);
      res.writeHead(201).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    await client({ baseUrl: `http://127.0.0.1:${port}/mint/` }).createWallet();
    server.close();
    expect(seen).toEqual(['POST /mint/v1/wallet']);
  });

  it('refuses to send input the spec does not allow', async () => {
    const error = await failure(
      client().createLink({ nftId: ' ', walletOptions: 'CUSTODIAL', email: 'nope', customerId: ['a', 'a'] }),
    );
    expect(error.kind).toBe('rejected');
    expect(error.status).toBeUndefined();
    expect(error.message).toContain('nftId');
    expect(error.message).toContain('email');
    expect(error.message).toContain('"a" is listed twice');
    await failure(client().listTemplates({ contractId: DEMO_CONTRACT_ID, limit: 51 }));
    await failure(client().createLink({ nftId: 'n', walletOptions: 'CUSTODIAL', extra: 1 } as never));
    expect(mint.requests).toEqual([]);
  });
});

describe('errors', () => {
  it('turns a 400 into "rejected" with the service message', async () => {
    mint.failNext('create_link', {
      mode: 'status',
      status: 400,
      body: { message: ['nftId does not exist'], error: 'Bad Request' },
    });
    const error = await failure(client().createLink({ nftId: 'n', walletOptions: 'CUSTODIAL' }));
    expect(error).toMatchObject({ kind: 'rejected', status: 400, details: { serviceMessage: 'nftId does not exist' } });
    expect(error.message).toBe('The Mint service answered 400: nftId does not exist');
  });

  it('turns a wrong key into "unauthorized" and never repeats the key', async () => {
    const error = await failure(client({ apiKey: 'wrong-key-VALUE' }).createWallet());
    expect(error).toMatchObject({ kind: 'unauthorized', status: 401 });
    expect(JSON.stringify({ ...error, message: error.message })).not.toContain('wrong-key-VALUE');
  });

  it('turns an unknown contract into "not_found"', async () => {
    const error = await failure(client().listTemplates({ contractId: 'no-such-contract' }));
    expect(error).toMatchObject({ kind: 'not_found', status: 404 });
  });

  it('turns 500 into "unavailable" and 429 into "rate_limited" with Retry-After, without repeating a POST', async () => {
    mint.failNext('create_link', { mode: 'status', status: 500 });
    expect((await failure(client().createLink({ nftId: 'n', walletOptions: 'CUSTODIAL' }))).kind).toBe('unavailable');
    mint.failNext('create_link', { mode: 'status', status: 429, headers: { 'retry-after': '1' } });
    const limited = await failure(client().createLink({ nftId: 'n', walletOptions: 'CUSTODIAL' }));
    expect(limited).toMatchObject({ kind: 'rate_limited', status: 429, details: { retryAfterSeconds: 1 } });
    expect(mint.requestsTo('create_link')).toHaveLength(2);
  });

  it('cuts a long service message and removes the API key from it', async () => {
    mint.failNext('create_wallet', {
      mode: 'status',
      status: 422,
      body: { message: `key ${API_KEY} is odd ${'x'.repeat(1000)}` },
    });
    const error = await failure(client().createWallet());
    expect(error.details.serviceMessage?.length).toBeLessThanOrEqual(300);
    expect(error.details.serviceMessage).toMatch(/^key \[redacted\] is odd x+…$/);
    expect(error.message).not.toContain(API_KEY);
  });

  it('reads a plain-text error body but not an HTML page', async () => {
    mint.failNext('create_wallet', {
      mode: 'status',
      status: 503,
      body: 'maintenance\n until 10:00',
      headers: { 'content-type': 'text/plain' },
    });
    const text = await failure(client().createWallet());
    expect(text.details.serviceMessage).toBe('maintenance until 10:00');
    expect(text.message).toBe('The Mint service answered 503: maintenance until 10:00');
    mint.failNext('create_wallet', {
      mode: 'status',
      status: 502,
      body: '<html>Bad gateway</html>',
      headers: { 'content-type': 'text/html' },
    });
    const html = await failure(client().createWallet());
    expect(html).toMatchObject({ kind: 'unavailable', status: 502, details: {} });
    expect(html.message).toBe('The Mint service answered 502.');
  });

  it('turns an answer that is not what the spec promises into "bad_response"', async () => {
    mint.failNext('create_link', { mode: 'status', status: 201, body: ['not', 'an', 'object'] });
    expect((await failure(client().createLink({ nftId: 'n', walletOptions: 'CUSTODIAL' }))).kind).toBe('bad_response');
    mint.failNext('list_templates', { mode: 'status', status: 200, body: { note: 'no list here' } });
    expect((await failure(client().listTemplates({ contractId: DEMO_CONTRACT_ID }))).kind).toBe('bad_response');
  });

  it('gives up at the time budget with "timeout" and does not repeat a POST', async () => {
    mint.failNext('create_link', { mode: 'hang' });
    const started = Date.now();
    const error = await failure(client({ timeoutMs: 100 }).createLink({ nftId: 'n', walletOptions: 'CUSTODIAL' }));
    expect(error).toMatchObject({ kind: 'timeout', details: { outcomeUnknown: true } });
    expect(error.message).toBe('The Mint service did not answer within 0.1 s.');
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(mint.requestsTo('create_link')).toHaveLength(1);
  });

  it('turns a dropped connection into "network" and does not repeat a POST or PATCH', async () => {
    mint.failNext('*', { mode: 'drop' }, 2);
    expect(await failure(client().createLink({ nftId: 'n', walletOptions: 'CUSTODIAL' }))).toMatchObject({
      kind: 'network',
      details: { outcomeUnknown: true },
    });
    expect((await failure(client().deleteCustomers(['c1']))).kind).toBe('network');
    expect(mint.requests).toHaveLength(2);
  });
});

describe('retries', () => {
  it('repeats a GET that failed with 503 or a dropped connection, at most twice', async () => {
    mint.failNext('list_templates', { mode: 'status', status: 503 });
    mint.failNext('list_templates', { mode: 'drop' });
    const page = await client().listTemplates({ contractId: DEMO_CONTRACT_ID, limit: 3 });
    expect(page.items).toHaveLength(3);
    expect(mint.requestsTo('list_templates')).toHaveLength(3);

    mint.reset();
    mint.failNext('list_templates', { mode: 'status', status: 500 }, 5);
    expect((await failure(client().listTemplates({ contractId: DEMO_CONTRACT_ID }))).kind).toBe('unavailable');
    expect(mint.requestsTo('list_templates')).toHaveLength(3);
  });

  it('does not repeat a GET that the service rejected', async () => {
    mint.failNext('list_templates', { mode: 'status', status: 400 }, 3);
    await failure(client().listTemplates({ contractId: DEMO_CONTRACT_ID }));
    expect(mint.requestsTo('list_templates')).toHaveLength(1);
  });

  it('waits as long as Retry-After says before repeating a GET', async () => {
    // The wait ends when the test says: what is checked is how long the client asks to wait, and that nothing
    // is sent before the wait ends.
    const { waits, retryTimer } = heldWaits(() => mint.requestsTo('list_templates').length);
    mint.failNext('list_templates', { mode: 'status', status: 429, headers: { 'retry-after': '1' } });
    const page = client({ retryTimer }).listTemplates({ contractId: DEMO_CONTRACT_ID });
    await vi.waitFor(() => expect(waits).toHaveLength(1));
    expect(waits[0]).toMatchObject({ ms: 1_000, receivedBefore: 1 });
    expect(mint.requestsTo('list_templates')).toHaveLength(1);
    waits[0]?.end();
    await expect(page).resolves.toMatchObject({ total: DEMO_TEMPLATE_COUNT });
    expect(mint.requestsTo('list_templates')).toHaveLength(2);
  });

  it('does not wait for a Retry-After beyond the time budget', async () => {
    mint.failNext('list_templates', { mode: 'status', status: 429, headers: { 'retry-after': '120' } });
    const started = Date.now();
    const error = await failure(client({ timeoutMs: 2_000 }).listTemplates({ contractId: DEMO_CONTRACT_ID }));
    expect(error).toMatchObject({ kind: 'rate_limited', details: { retryAfterSeconds: 120 } });
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(mint.requestsTo('list_templates')).toHaveLength(1);
  });

  it('repeats a POST whose connection was refused (it never reached the service)', async () => {
    const port = await freePort();
    const late = new MockMintService({ apiKey: API_KEY });
    const { waits, retryTimer } = heldWaits(() => late.requestsTo('create_wallet').length);
    const created = client({ baseUrl: `http://127.0.0.1:${port}`, retryTimer });
    const refusals = watchConnectErrors(port);
    const attempt = created.createWallet({ userId: 'cus_late' });
    await refusals.first; // the first try has failed: the service comes up before the second
    refusals.stop();
    await late.listen(port);
    try {
      await vi.waitFor(() => expect(waits).toHaveLength(1));
      waits[0]?.end();
      await expect(attempt).resolves.toBeUndefined();
      expect(late.requestsTo('create_wallet')).toHaveLength(1);
    } finally {
      await late.close();
    }
  });

  it('reports "network" when the service stays unreachable', async () => {
    const port = await freePort();
    const error = await failure(client({ baseUrl: `http://127.0.0.1:${port}` }).createWallet());
    expect(error).toMatchObject({ kind: 'network', details: { outcomeUnknown: false } });
    expect(error.message).toBe('Could not reach the Mint service (ECONNREFUSED).');
  });
});

describe('no limit of its own on calls in flight', () => {
  it('sends 300 calls at once to a slow service, refusing none', async () => {
    let answer: () => void = () => undefined;
    mint.holdAnswers = new Promise<void>((resolve) => (answer = resolve));
    const metrics = createMetrics({ workInFlight: () => 0 });
    const c = client({ metrics, timeoutMs: 10_000 });
    const settled = Promise.allSettled(Array.from({ length: 300 }, () => c.createWallet()));
    // All 300 reach the service while none has been answered yet: no cap of its own.
    await expect.poll(() => mint.requestsTo('create_wallet').length, { timeout: 4_000 }).toBe(300);
    answer();
    expect((await settled).filter((s) => s.status === 'rejected')).toEqual([]);
    const counted = await metrics.registry.metrics();
    expect(counted).toContain('mintlink_mint_api_calls_total{operation="create_wallet",status="201"} 300');
    expect(counted).not.toContain('status="not_sent"');
    expect(c.status).toMatchObject({ circuit: 'closed', pausedUntil: undefined });
  }, 15_000);
});

describe('pauses the service asks for', () => {
  it('after a 429 with Retry-After sends no call of any operation until that time has passed', async () => {
    const clock = manualClock();
    const metrics = createMetrics({ workInFlight: () => 0 });
    const c = client({ now: clock.now, metrics });
    mint.failNext('create_wallet', { mode: 'status', status: 429, headers: { 'retry-after': '2' } });
    const limited = await failure(c.createWallet());
    expect(limited).toMatchObject({ kind: 'rate_limited', status: 429, details: { retryAfterSeconds: 2 } });
    expect(c.status.pausedUntil).toEqual(new Date(clock.now() + 2_000));

    clock.advance(500);
    const held = await failure(c.listTemplates({ contractId: DEMO_CONTRACT_ID }));
    expect(held).toMatchObject({ kind: 'rate_limited', status: undefined });
    expect(held.details).toEqual({ retryAfterSeconds: 2, outcomeUnknown: false });
    expect(held.message).toBe(
      'The Mint service asked the app to wait (it receives too many requests); this request was not sent. ' +
        'Try again in 2 s.',
    );
    expect(mint.requests).toHaveLength(1); // refused before anything was dispatched
    expect(await metrics.registry.metrics()).toContain(
      'mintlink_mint_api_calls_total{operation="list_templates",status="not_sent"} 1',
    );

    clock.advance(1_500);
    expect(c.status.pausedUntil).toBeUndefined();
    const page = await c.listTemplates({ contractId: DEMO_CONTRACT_ID });
    expect(page.total).toBe(DEMO_TEMPLATE_COUNT);
    expect(mint.requests).toHaveLength(2);
  });

  it('pauses for a default time after a 429 without Retry-After', async () => {
    const clock = manualClock();
    const c = client({ now: clock.now, defaultPauseMs: 5_000 });
    mint.failNext('create_link', { mode: 'status', status: 429 });
    await failure(c.createLink({ nftId: 'n', walletOptions: 'CUSTODIAL' }));
    expect(await failure(c.createWallet())).toMatchObject({ kind: 'rate_limited', details: { retryAfterSeconds: 5 } });
    clock.advance(5_000);
    await expect(c.createWallet()).resolves.toBeUndefined();
    expect(mint.requests).toHaveLength(2);
  });

  it('pauses after a 503 with Retry-After ("unavailable"), but not after a 503 without', async () => {
    const clock = manualClock();
    const c = client({ now: clock.now });
    mint.failNext('create_link', { mode: 'status', status: 503 });
    await failure(c.createLink({ nftId: 'n', walletOptions: 'CUSTODIAL' }));
    await expect(c.createWallet()).resolves.toBeUndefined();

    mint.failNext('create_link', { mode: 'status', status: 503, headers: { 'retry-after': '30' } });
    await failure(c.createLink({ nftId: 'n', walletOptions: 'CUSTODIAL' }));
    const held = await failure(c.createWallet());
    expect(held).toMatchObject({ kind: 'unavailable', status: undefined, details: { retryAfterSeconds: 30 } });
    expect(held.message).toContain('asked the app to wait (it is unavailable)');
    expect(mint.requests).toHaveLength(3);
  });

  it('pauses the other operations while a GET waits out a 429 before trying again', async () => {
    // The GET's wait ends when the test says (the real wait is checked above), and the clock moves with it.
    const clock = manualClock();
    const waits: Array<{ ms: number; end: () => void }> = [];
    const retryTimer: RetryTimer = (ms, then) => {
      waits.push({ ms, end: then });
      return () => undefined;
    };
    const c = client({ now: clock.now, retryTimer });
    mint.failNext('list_templates', { mode: 'status', status: 429, headers: { 'retry-after': '1' } });
    const page = c.listTemplates({ contractId: DEMO_CONTRACT_ID });
    await vi.waitFor(() => expect(waits).toHaveLength(1)); // the 429 has been read: the GET waits
    expect(waits[0]?.ms).toBe(1_000);
    expect(await failure(c.createWallet())).toMatchObject({ kind: 'rate_limited', details: { retryAfterSeconds: 1 } });
    clock.advance(1_000);
    waits[0]?.end();
    await expect(page).resolves.toMatchObject({ total: DEMO_TEMPLATE_COUNT });
    expect(mint.requests.map((r) => r.route)).toEqual(['list_templates', 'list_templates']);
    await expect(c.createWallet()).resolves.toBeUndefined(); // the pause is over
  });
});

describe('circuit breaker', () => {
  it('opens after consecutive 5xx answers, fails fast without sending, and closes after a good test call', async () => {
    const metrics = createMetrics({ workInFlight: () => 0 });
    const c = client({ metrics, breaker: { consecutiveFailures: 3, halfOpenAfterMs: 300 } });
    mint.failNext('create_wallet', { mode: 'status', status: 500 }, 3);
    for (let i = 0; i < 3; i++) {
      expect(await failure(c.createWallet())).toMatchObject({ kind: 'unavailable', status: 500 });
    }
    expect(c.status.circuit).toBe('open');

    const started = Date.now();
    const held = await failure(c.createLink(link));
    expect(Date.now() - started).toBeLessThan(100);
    expect(held).toMatchObject({ kind: 'unavailable', status: undefined, details: { outcomeUnknown: false } });
    expect(held.message).toBe(
      'The Mint service has been failing, so the app is not sending requests to it for a few seconds; ' +
        'this one was not sent.',
    );
    expect(mint.requests).toHaveLength(3);
    expect(await metrics.registry.metrics()).toContain(
      'mintlink_mint_api_calls_total{operation="create_link",status="not_sent"} 1',
    );

    await vi.waitFor(() => expect(c.status.circuit).toBe('half-open'));
    await expect(c.createLink(link)).resolves.toMatchObject({ nftId: 'n' });
    expect(c.status.circuit).toBe('closed');
    await expect(c.createWallet()).resolves.toBeUndefined();
    expect(mint.requests).toHaveLength(5);
  });

  it('lets one test call through at a time, and opens again when it fails', async () => {
    const c = client({ breaker: { consecutiveFailures: 1, halfOpenAfterMs: 200 } });
    mint.failNext('create_wallet', { mode: 'status', status: 502 });
    await failure(c.createWallet());
    await vi.waitFor(() => expect(c.status.circuit).toBe('half-open'));

    // The service holds the test call's answer until the other call has been refused.
    let answer: () => void = () => undefined;
    mint.holdAnswers = new Promise<void>((resolve) => (answer = resolve));
    mint.failNext('create_wallet', { mode: 'status', status: 503 });
    const settled: string[] = [];
    const test = failure(c.createWallet()).finally(() => settled.push('test call'));
    const other = failure(c.createLink(link)).finally(() => settled.push('other call'));
    expect(await other).toMatchObject({ kind: 'unavailable', status: undefined });
    answer();
    expect(await test).toMatchObject({ kind: 'unavailable', status: 503 });
    expect(settled).toEqual(['other call', 'test call']); // refused at once, not queued behind the test call
    expect(c.status.circuit).toBe('open');
    expect(mint.requests.map((r) => r.route)).toEqual(['create_wallet', 'create_wallet']);
  });

  it('opens on refused connections and timeouts, and closes once the service is back', async () => {
    const port = await freePort();
    const breaker = { consecutiveFailures: 2, halfOpenAfterMs: 300 };
    const c = client({ baseUrl: `http://127.0.0.1:${port}`, timeoutMs: 300, breaker });
    expect(await failure(c.createWallet())).toMatchObject({ kind: 'network' });
    expect(c.status.circuit).toBe('closed');
    expect(await failure(c.createWallet())).toMatchObject({ kind: 'network' });
    expect(c.status.circuit).toBe('open');
    const refusals = watchConnectErrors(port);
    expect(await failure(c.createWallet())).toMatchObject({ kind: 'unavailable', status: undefined });
    expect(refusals.count()).toBe(0); // not even a connection was tried
    refusals.stop();

    const late = new MockMintService({ apiKey: API_KEY });
    await late.listen(port);
    try {
      await vi.waitFor(() => expect(c.status.circuit).toBe('half-open'));
      late.failNext('create_wallet', { mode: 'hang' }, 2);
      expect(await failure(c.createWallet())).toMatchObject({ kind: 'timeout' });
      expect(c.status.circuit).toBe('open'); // a failed test call opens it again at once
      await vi.waitFor(() => expect(c.status.circuit).toBe('half-open'));
      expect(await failure(c.createWallet())).toMatchObject({ kind: 'timeout' });
      await vi.waitFor(() => expect(c.status.circuit).toBe('half-open'));
      await expect(c.createWallet({ userId: 'cus_back' })).resolves.toBeUndefined();
      expect(c.status.circuit).toBe('closed');
      expect(late.requestsTo('create_wallet')).toHaveLength(3);
    } finally {
      await late.close();
    }
  });

  it('counts a GET with its retries as one failure', async () => {
    const c = client({ breaker: { consecutiveFailures: 2, halfOpenAfterMs: 60_000 } });
    mint.failNext('list_templates', { mode: 'status', status: 500 }, 3);
    await failure(c.listTemplates({ contractId: DEMO_CONTRACT_ID }));
    expect(mint.requests).toHaveLength(3);
    expect(c.status.circuit).toBe('closed');
    mint.failNext('list_templates', { mode: 'status', status: 500 }, 3);
    await failure(c.listTemplates({ contractId: DEMO_CONTRACT_ID }));
    expect(c.status.circuit).toBe('open');
  });

  it('is never opened by 4xx answers, which also end a run of outages', async () => {
    const c = client({ breaker: { consecutiveFailures: 2, halfOpenAfterMs: 60_000 } });
    mint.failNext('create_link', { mode: 'status', status: 400 }, 3);
    mint.failNext('create_wallet', { mode: 'status', status: 422 }, 3);
    for (let i = 0; i < 3; i++) {
      expect((await failure(c.createLink(link))).kind).toBe('rejected');
      expect((await failure(c.createWallet())).kind).toBe('rejected');
      expect((await failure(c.listTemplates({ contractId: 'no-such-contract' }))).kind).toBe('not_found');
    }
    const wrongKey = client({ apiKey: 'wrong', breaker: { consecutiveFailures: 1 } });
    expect((await failure(wrongKey.createWallet())).kind).toBe('unauthorized');
    expect([c.status.circuit, wrongKey.status.circuit]).toEqual(['closed', 'closed']);
    expect(mint.requests).toHaveLength(10);

    mint.failNext('create_wallet', { mode: 'status', status: 500 });
    await failure(c.createWallet());
    mint.failNext('create_wallet', { mode: 'status', status: 404 });
    await failure(c.createWallet());
    mint.failNext('create_wallet', { mode: 'status', status: 500 });
    await failure(c.createWallet());
    expect(c.status.circuit).toBe('closed');
  });
});

describe('answer size', () => {
  it('stops reading an answer larger than 5 MiB and reports "bad_response"', async () => {
    mint.failNext('list_templates', { mode: 'status', status: 200, body: { items: ['x'.repeat(6 * 1024 * 1024)] } });
    const error = await failure(client().listTemplates({ contractId: DEMO_CONTRACT_ID }));
    expect(error).toMatchObject({ kind: 'bad_response', details: { outcomeUnknown: false } });
    expect(error.message).toBe('The Mint service answered with more data than expected.');
    expect(mint.requestsTo('list_templates')).toHaveLength(1);
    mint.failNext('create_link', { mode: 'status', status: 201, body: { big: 'x'.repeat(6 * 1024 * 1024) } });
    const created = await failure(client().createLink(link));
    expect(created).toMatchObject({ kind: 'bad_response', details: { outcomeUnknown: true } });
  });
});

describe('metrics', () => {
  it('counts calls by operation and status and observes their latency', async () => {
    const metrics = createMetrics({ workInFlight: () => 0 });
    const c = client({ metrics });
    await c.createWallet();
    mint.failNext('create_link', { mode: 'status', status: 400 });
    await failure(c.createLink({ nftId: 'n', walletOptions: 'CUSTODIAL' }));
    const port = await freePort();
    await failure(client({ metrics, baseUrl: `http://127.0.0.1:${port}` }).createWallet());
    const text = await metrics.registry.metrics();
    expect(text).toContain('mintlink_mint_api_calls_total{operation="create_wallet",status="201"} 1');
    expect(text).toContain('mintlink_mint_api_calls_total{operation="create_link",status="400"} 1');
    expect(text).toContain('mintlink_mint_api_calls_total{operation="create_wallet",status="network"} 1');
    expect(text).toMatch(/mintlink_mint_api_call_duration_seconds_count\{operation="create_wallet",status="201"\} 1/);
  });
});
