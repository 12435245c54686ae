import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LINK_BLOCKS } from '../../../../src/capabilities/links/link-form.js';
import type { RunningApp } from '../../../kit/running-app.js';
import { useFakes } from '../../../kit/fakes.js';

interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
}

/** An OTLP/HTTP (JSON) trace receiver on loopback, as a collector would be. */
class OtlpReceiver {
  readonly spans: ReceivedSpan[] = [];
  private readonly server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (req.url === '/v1/traces' && req.headers['content-type']?.includes('json')) {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
          resourceSpans?: Array<{ scopeSpans?: Array<{ spans?: ReceivedSpan[] }> }>;
        };
        for (const resource of body.resourceSpans ?? [])
          for (const scope of resource.scopeSpans ?? []) this.spans.push(...(scope.spans ?? []));
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  stop(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  async waitFor(name: string, count = 1): Promise<ReceivedSpan[]> {
    await expect
      .poll(() => this.spans.filter((s) => s.name === name).length, { timeout: 8_000 })
      .toBeGreaterThanOrEqual(count);
    return this.spans.filter((s) => s.name === name);
  }

  trace(traceId: string): string[] {
    return this.spans.filter((s) => s.traceId === traceId).map((s) => s.name);
  }
}

/** With OTEL_EXPORTER_OTLP_ENDPOINT set, each Slack request is one trace: ack, store, Mint and Slack calls. */
describe('tracing over OTLP', () => {
  const fakes = useFakes();
  const receiver = new OtlpReceiver();
  let app: RunningApp;
  beforeAll(async () => {
    const endpoint = await receiver.start();
    app = await fakes.startProcess('http', {
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_BSP_SCHEDULE_DELAY: '50' },
    });
  });
  afterAll(async () => {
    await app?.stop();
    await receiver.stop();
  });

  it('exports one trace per command, with its ack inside', async () => {
    await app.command('help');
    await app.command('help');
    const requests = await receiver.waitFor('slack command help', 2);
    const traces = new Set(requests.map((s) => s.traceId));
    expect(traces.size).toBe(2);
    for (const traceId of traces) expect(receiver.trace(traceId).sort()).toEqual(['slack ack', 'slack command help']);
  });

  it('puts the ack, the database, the Mint call and the Slack calls of a form submission in one trace', async () => {
    await app.submitFormFromCommand('link', { [LINK_BLOCKS.nftId]: 'nft-traced' });
    const [opened] = await receiver.waitFor('slack command link');
    expect(receiver.trace(opened?.traceId ?? '')).toEqual(expect.arrayContaining(['slack ack', 'slack views.open']));
    const [submission] = await receiver.waitFor('slack view link_form');
    await receiver.waitFor('slack chat.postMessage');
    const names = receiver.trace(submission?.traceId ?? '');
    for (const name of [
      'slack ack',
      'db insert',
      'db update',
      'mint create_link',
      'slack views.update',
      'slack chat.postMessage',
    ]) {
      expect(names).toContain(name);
    }
    const children = receiver.spans.filter(
      (s) => s.traceId === submission?.traceId && s.name !== 'slack view link_form',
    );
    expect(children.every((s) => s.parentSpanId)).toBe(true);
  });
});
