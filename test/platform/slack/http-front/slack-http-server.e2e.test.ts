import { request } from 'node:http';
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { SLACK_BODY_LIMIT_BYTES } from '../../../../src/platform/slack/http-front/slack-request-screen.js';
import { TEST_SIGNING_SECRET } from '../../../kit/app-process.js';
import { useAppProcess, useFakes } from '../../../kit/fakes.js';
import { formBody, slashCommand } from '../../../kit/slack-payloads.js';
import { slackSignatureHeaders } from '../../../kit/slack-signature.js';

const FORM = 'application/x-www-form-urlencoded';

/** A request that sends its headers (signed, so they pass) and then one byte of a 1000-byte body. */
function trickle(baseUrl: string): { done: Promise<number> } {
  const url = new URL('/slack/events', baseUrl);
  const headers = {
    ...slackSignatureHeaders('x', TEST_SIGNING_SECRET),
    'content-type': FORM,
    'content-length': '1000',
  };
  const req = request(url, { method: 'POST', headers });
  const done = new Promise<number>((resolve) => {
    req.on('response', (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', () => resolve(0));
  });
  req.write('p');
  return { done };
}

/**
 * What reaches Slack's endpoint in HTTP mode is screened before Bolt reads it: size, clock, signature, shape.
 * One process for the block (its memory is checked, and its stop on SIGTERM, last).
 */
describe('the Slack endpoint in HTTP mode', () => {
  const fakes = useFakes();
  const running = useAppProcess(fakes, 'http');

  /** A raw POST, streamed without a Content-Length when `chunked`; resolves with the status. */
  function post(body: Buffer | string, headers: Record<string, string>, chunked = false): Promise<number> {
    return new Promise((resolve, reject) => {
      const url = new URL('/slack/events', running.app.baseUrl);
      const req = request(url, { method: 'POST', headers: { 'content-type': FORM, ...headers } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', (error) => (req.destroyed ? resolve(0) : reject(error)));
      if (!chunked) req.setHeader('content-length', Buffer.byteLength(body));
      req.end(body);
    });
  }

  it('refuses a body over the limit with 413, declared or streamed, before checking anything else', async () => {
    const big = Buffer.alloc(4 * 1024 * 1024, 'a');
    const started = Date.now();
    expect(await post(big, { 'x-slack-signature': 'v0=00', 'x-slack-request-timestamp': '1' })).toBe(413);
    expect(Date.now() - started).toBeLessThan(2_000);
    const signedButLarge = `text=${'x'.repeat(SLACK_BODY_LIMIT_BYTES)}`;
    expect(await post(signedButLarge, slackSignatureHeaders(signedButLarge, TEST_SIGNING_SECRET), true)).toBe(413);
  });

  it('keeps memory and latency bounded under a flood of large unsigned bodies', async () => {
    const before = running.app.rssMb;
    const body = Buffer.alloc(1024 * 1024, 'b');
    const statuses = await Promise.all(
      Array.from({ length: 200 }, () =>
        post(body, { 'x-slack-signature': 'v0=00', 'x-slack-request-timestamp': '1' }, true),
      ),
    );
    expect(new Set(statuses.filter((s) => s !== 0))).toSatisfy((set: Set<number>) =>
      [...set].every((s) => s === 413 || s === 503),
    );
    expect(running.app.rssMb - before).toBeLessThan(100);
    const started = Date.now();
    const { ack } = await running.app.command('help');
    expect(ack?.response_type).toBe('ephemeral');
    expect(Date.now() - started).toBeLessThan(1_000);
    expect((await fetch(`${running.app.baseUrl}/healthz`)).status).toBe(200);
  });

  it.each([
    ['10 minutes ahead', String(Math.floor(Date.now() / 1000) + 600)],
    ['a year ahead', String(Math.floor(Date.now() / 1000) + 365 * 86_400)],
    ['Infinity', 'Infinity'],
    ['in exponent notation', '1e10'],
    ['empty', ''],
  ])(
    'refuses a correctly signed request whose timestamp is %s with 401, and does nothing',
    async (_name, timestamp) => {
      const fields = slashCommand(fakes.slack, 'help');
      const body = formBody(fields);
      expect(await post(body, slackSignatureHeaders(body, TEST_SIGNING_SECRET, timestamp))).toBe(401);
      await running.app.waitForIdle();
      expect(fakes.slack.responsesTo(fields.response_url ?? '')).toEqual([]);
    },
  );

  it.each([
    ['payload=null', 'payload=null', FORM],
    ['payload=[]', 'payload=%5B%5D', FORM],
    ['payload=1', 'payload=1', FORM],
    ['payload that is not JSON', 'payload=%7Bnope', FORM],
    // Bolt decodes the form's keys too: a percent-encoded `payload` key is a payload all the same.
    ['percent-encoded payload key with null', 'command=%2Fmintlink&%70ayload=null', FORM],
    ['payload key without a value', 'command=%2Fmintlink&payload', FORM],
    ['a JSON null', 'null', 'application/json'],
    ['a JSON array', '[1]', 'application/json'],
  ])('answers a signed %s with 400 at once', async (_name, body, contentType) => {
    const status = await post(body, {
      ...slackSignatureHeaders(body, TEST_SIGNING_SECRET),
      'content-type': contentType,
    });
    expect(status).toBe(400);
    await running.app.waitForIdle();
    expect(fakes.slack.calls).toEqual([]);
  });

  it('without HOST, binds every interface, as before HOST existed: 127.0.0.2 reaches it too', async () => {
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect({ host: '127.0.0.2', port: running.app.port }, () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    expect(open).toBe(true);
  });

  // Last: it stops the block's process.
  it('shuts down within its grace period while a client trickles a request', async () => {
    const { app } = running;
    trickle(app.baseUrl);
    const started = Date.now();
    expect(await app.stop('SIGTERM')).toBe(0);
    expect(Date.now() - started).toBeLessThan(8_000);
  });
});

// The bounded reads are the HTTP front's (start-mintlink.ts): the app runs in the test's process.
describe('the Slack endpoint against slow clients', () => {
  const fakes = useFakes();

  it('drops bodies that trickle in, so slow connections hold the bounded reads for 2 s at most', async () => {
    const app = await fakes.startApp('http');
    try {
      // Fewer than the bounded reads: Slack's requests still get in at once.
      const some = Array.from({ length: 100 }, () => trickle(app.baseUrl));
      expect((await app.command('help')).status).toBe(200);
      // More: new requests are refused (503) only until the trickles are dropped, within about 2 s.
      const many = Array.from({ length: 300 }, () => trickle(app.baseUrl));
      const started = Date.now();
      const statuses = await Promise.all([...some, ...many].map((s) => s.done));
      // About 2 s on a quiet machine, 5.4 s seen on a loaded one; never dropped would be the test's timeout.
      expect(Date.now() - started).toBeLessThan(10_000);
      expect(statuses.every((s) => s === 408 || s === 503 || s === 0)).toBe(true);
      const { ack, status } = await app.command('help');
      expect(status).toBe(200);
      expect(ack?.response_type).toBe('ephemeral');
    } finally {
      await app.stop();
    }
  });
});
