import { Agent, request } from 'node:http';
import { Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { bearerTokenCheck, metricsResponder } from '../../../../src/platform/ops/health/metrics-access.js';
import { startMetricsListener, type MetricsListener } from '../../../../src/platform/ops/health/metrics-listener.js';
import { createLogger } from '../../../../src/platform/ops/telemetry/create-logger.js';

const TOKEN = 'metrics-token-0123456789abcdef';

describe('bearerTokenCheck', () => {
  const check = bearerTokenCheck(TOKEN);

  it('allows the configured token only', () => {
    expect(check(`Bearer ${TOKEN}`)).toBe('allowed');
    expect(check(`bearer ${TOKEN}`)).toBe('allowed'); // the scheme is case-insensitive (RFC 9110)
    expect(check(`Bearer ${TOKEN}x`)).toBe('wrong');
    expect(check(`Bearer ${TOKEN.slice(0, -1)}`)).toBe('wrong');
    expect(check('Bearer x')).toBe('wrong');
    expect(check(`Bearer ${TOKEN.toUpperCase()}`)).toBe('wrong');
  });

  it('treats anything but a bearer credential as missing', () => {
    expect(check(undefined)).toBe('missing');
    expect(check('')).toBe('missing');
    expect(check(`Basic ${Buffer.from(`x:${TOKEN}`).toString('base64')}`)).toBe('missing');
    expect(check(TOKEN)).toBe('missing');
    expect(check('Bearer ')).toBe('missing');
  });
});

/** One request to the listener, by node:http (keep-alive when an agent is given). */
function get(port: number, path: string, headers: Record<string, string> = {}, method = 'GET') {
  return new Promise<{ status: number; headers: Record<string, unknown>; body: string }>((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers, method }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('the METRICS_PORT listener', () => {
  const registry = new Registry();
  const logger = createLogger({ level: 'error', scrub: (text) => text, pretty: false });
  let listener: MetricsListener | undefined;
  afterEach(async () => {
    await listener?.close();
    listener = undefined;
  });

  it('serves /metrics behind the token, and nothing else', async () => {
    listener = await startMetricsListener({
      port: 0,
      host: '127.0.0.1',
      serve: metricsResponder({ registry }, TOKEN),
      logger,
    });
    const none = await get(listener.port, '/metrics');
    expect(none.status).toBe(401);
    expect(none.headers['www-authenticate']).toBe('Bearer realm="mintlink metrics"');
    const wrong = await get(listener.port, '/metrics', { authorization: 'Bearer not-the-token-at-all' });
    expect(wrong.status).toBe(401);
    expect(wrong.headers['www-authenticate']).toBe('Bearer realm="mintlink metrics", error="invalid_token"');
    expect(wrong.body).not.toContain(TOKEN);
    const right = await get(listener.port, '/metrics?x=1', { authorization: `Bearer ${TOKEN}` });
    expect(right.status).toBe(200);
    expect(right.headers['content-type']).toBe(registry.contentType);
    expect((await get(listener.port, '/healthz')).status).toBe(404);
    expect((await get(listener.port, '/')).status).toBe(404);
    const post = await get(listener.port, '/metrics', { authorization: `Bearer ${TOKEN}` }, 'POST');
    expect([post.status, post.headers.allow]).toEqual([405, 'GET, HEAD']);
  });

  it('serves /metrics to anyone without a token', async () => {
    listener = await startMetricsListener({
      port: 0,
      host: '127.0.0.1',
      serve: metricsResponder({ registry }, undefined),
      logger,
    });
    expect((await get(listener.port, '/metrics')).status).toBe(200);
  });

  it('closes even while a scraper keeps its connection open', async () => {
    const started = await startMetricsListener({
      port: 0,
      host: '127.0.0.1',
      serve: metricsResponder({ registry }, undefined),
      logger,
    });
    const agent = new Agent({ keepAlive: true });
    const kept = await new Promise<number>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port: started.port, path: '/metrics', agent }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      });
      req.on('error', reject);
      req.end();
    });
    expect(kept).toBe(200);
    await started.close(); // would wait for the idle keep-alive connection without closing it
    await expect(get(started.port, '/metrics')).rejects.toThrow(/ECONNREFUSED/);
    agent.destroy();
  });

  it('says why it cannot listen', async () => {
    listener = await startMetricsListener({
      port: 0,
      host: '127.0.0.1',
      serve: metricsResponder({ registry }, undefined),
      logger,
    });
    await expect(
      startMetricsListener({
        port: listener.port,
        host: '127.0.0.1',
        serve: metricsResponder({ registry }, undefined),
        logger,
      }),
    ).rejects.toThrow(/EADDRINUSE/);
  });
});
