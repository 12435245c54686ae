import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebClient } from '@slack/web-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { undiciFetch } from '../../src/slack-api/undici-fetch.js';

describe('undiciFetch', () => {
  let server: Server;
  let base: string;
  const seen: Array<{ method?: string; url?: string; headers: Record<string, unknown>; body: string }> = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        seen.push({ method: req.method, url: req.url, headers: req.headers, body });
        if (req.url?.includes('limited')) return void res.writeHead(429, { 'retry-after': '7' }).end();
        if (req.url?.includes('gone')) return void res.writeHead(404).end('expired_url');
        if (req.url?.includes('silent')) return; // never answers
        res.writeHead(200, { 'content-type': 'application/json', 'x-oauth-scopes': 'chat:write' }).end('{"ok":true,"user_id":"U1"}');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('serves the Slack WebClient: request, JSON answer, headers', async () => {
    const client = new WebClient('xoxb-test', { slackApiUrl: `${base}/api/`, fetch: undiciFetch({ timeoutMs: 2_000 }), retryConfig: { retries: 0 } });
    const answer = await client.auth.test();
    expect(answer).toMatchObject({ ok: true, user_id: 'U1', response_metadata: { scopes: ['chat:write'] } });
    expect(seen.at(-1)).toMatchObject({ method: 'POST', url: '/api/auth.test', headers: { authorization: 'Bearer xoxb-test' } });
  });

  it('lets the WebClient see a 429 and its Retry-After', async () => {
    const client = new WebClient('xoxb-test', { slackApiUrl: `${base}/limited/`, fetch: undiciFetch({ timeoutMs: 2_000 }), rejectRateLimitedCalls: true });
    await expect(client.auth.test()).rejects.toMatchObject({ code: 'slack_webapi_rate_limited_error', retryAfter: 7 });
  });

  it('gives up on a server that does not answer within the time limit', async () => {
    const client = new WebClient('xoxb-test', { slackApiUrl: `${base}/silent/`, fetch: undiciFetch({ timeoutMs: 100 }), retryConfig: { retries: 0 } });
    await expect(client.auth.test()).rejects.toMatchObject({ code: 'slack_webapi_request_error', original: { code: 'UND_ERR_HEADERS_TIMEOUT' } });
  });

  it("answers like fetch for Bolt's respond(): status, ok, statusText, text", async () => {
    const f = undiciFetch({ timeoutMs: 2_000 });
    const ok = await f(`${base}/response/1`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"text":"hi"}' });
    expect([ok.status, ok.ok, ok.statusText, ok.headers.get('Content-Type')]).toEqual([200, true, 'OK', 'application/json']);
    const gone = await f(`${base}/gone`, { method: 'POST', body: '{}' });
    expect([gone.status, gone.ok, gone.statusText, await gone.text()]).toEqual([404, false, 'Not Found', 'expired_url']);
    expect(seen.at(-2)?.body).toBe('{"text":"hi"}');
  });
});
