import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DEMO_CONTRACT_ID, EMPTY_CONTRACT_ID } from '../../../src/operator/mock-mint-api/demo-templates.js';
import { MockMintService } from '../../../src/operator/mock-mint-api/mock-mint-service.js';

const KEY = 'mock-key-1';
let mint: MockMintService;

const call = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
  fetch(`${mint.url}${path}`, {
    method,
    headers: { 'x-api-key': KEY, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });

beforeAll(async () => {
  mint = new MockMintService({ apiKey: KEY });
  await mint.listen();
});
afterAll(async () => mint.close());
beforeEach(() => mint.reset());

describe('mock Mint service', () => {
  it('answers 401 without the right key, on every route', async () => {
    for (const [method, path] of [
      ['POST', '/v1/link'],
      ['POST', '/v1/wallet'],
      ['PATCH', '/v1/customer/delete'],
      ['GET', `/v1/nft/template/${DEMO_CONTRACT_ID}`],
    ] as const) {
      const res = await call(method, path, method === 'GET' ? undefined : {}, { 'x-api-key': 'wrong' });
      expect(res.status, path).toBe(401);
    }
  });

  it('validates bodies with the shared schemas (400 with a message)', async () => {
    const res = await call('POST', '/v1/link', { nftId: '', walletOptions: 'X' });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { message: string };
    expect(body.message).toContain('nftId: is required');
    expect(body.message).toContain('walletOptions');
    expect((await call('POST', '/v1/link', '{oops')).status).toBe(400);
    expect((await call('POST', '/v1/wallet', {}, { 'content-type': 'text/plain' })).status).toBe(415);
    expect((await call('GET', `/v1/nft/template/${DEMO_CONTRACT_ID}?limit=0`)).status).toBe(400);
    expect((await call('GET', `/v1/nft/template/${DEMO_CONTRACT_ID}?limit=ten`)).status).toBe(400);
  });

  it('keeps what it is given: links, wallets (new users), deletions', async () => {
    const link = await (
      await call('POST', '/v1/link', { nftId: 'n1', walletOptions: 'CUSTODIAL', customerId: ['c1'] })
    ).json();
    expect(link).toMatchObject({
      nftId: 'n1',
      type: 'GENERAL',
      isActive: true,
      url: expect.stringContaining('/claim/'),
    });
    const wallet = await call('POST', '/v1/wallet', {});
    expect(wallet.status).toBe(201);
    expect(await wallet.text()).toBe('');
    expect(mint.customers.size).toBe(2);
    const deleted = await call('PATCH', '/v1/customer/delete', ['c1', 'ghost']);
    expect(deleted.status).toBe(200);
    expect(await deleted.json()).toEqual({ deleted: ['c1'], notFound: ['ghost'] });
  });

  it('pages the seeded demo contract (123 templates) in both orders and both shapes', async () => {
    const page = (await (
      await call('GET', `/v1/nft/template/${DEMO_CONTRACT_ID}?offset=120&limit=10&orderBy=asc`)
    ).json()) as { items: Array<{ id: string }>; total: number };
    expect(page.total).toBe(123);
    expect(page.items.map((t) => t.id)).toEqual(['tmpl_121', 'tmpl_122', 'tmpl_123']);
    const desc = (await (await call('GET', `/v1/nft/template/${DEMO_CONTRACT_ID}?limit=2`)).json()) as {
      items: Array<{ id: string }>;
    };
    expect(desc.items.map((t) => t.id)).toEqual(['tmpl_123', 'tmpl_122']);
    mint.templateShape = 'array';
    expect(await (await call('GET', `/v1/nft/template/${EMPTY_CONTRACT_ID}`)).json()).toEqual([]);
    expect((await call('GET', '/v1/nft/template/unknown')).status).toBe(404);
    expect((await call('GET', '/v1/nft/template/../link')).status).toBe(404);
  });

  it('switches latency and failures on at run time through its control routes', async () => {
    const set = await fetch(`${mint.url}/__mock/behaviour`, {
      method: 'POST',
      body: JSON.stringify({ latencyMs: 150, fail: { route: 'create_wallet', mode: 'status', status: 503, times: 1 } }),
    });
    expect(await set.json()).toMatchObject({ latencyMs: 150, pendingFailures: 1 });
    const started = Date.now();
    expect((await call('POST', '/v1/wallet', {})).status).toBe(503);
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    expect((await call('POST', '/v1/wallet', {})).status).toBe(201);
    const recorded = (await (await fetch(`${mint.url}/__mock/requests`)).json()) as unknown[];
    expect(recorded).toHaveLength(2);
    await fetch(`${mint.url}/__mock/reset`, { method: 'POST' });
    expect(mint.latencyMs).toBe(0);
    expect(mint.requests).toHaveLength(0);
  });
});
