import { request } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { FakeSlack } from '../../sandbox/src/fake-slack.js';

/*
 * The Slack stand-in holds the workspace's tokens and answers for anyone, as the sandbox's page does: a page of
 * another site that points its own name at 127.0.0.1 (DNS rebinding) would reach it through the browser, with
 * its own name as the Host. Only loopback names are answered, the same check as the page's.
 */

let slack: FakeSlack;
const logged: string[] = [];
beforeAll(async () => {
  slack = await new FakeSlack({ testHooks: true, log: (line) => logged.push(line) }).start();
});
afterAll(async () => slack.stop());
beforeEach(() => {
  logged.length = 0;
  slack.reset();
});

/** A POST to the stand-in over real HTTP, with the Host header a browser would send for `host`. */
function post(path: string, host: string, body = '{}'): Promise<{ status: number; body: string }> {
  const { port } = new URL(slack.url);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path,
        method: 'POST',
        headers: { host, 'content-type': 'application/json', authorization: `Bearer ${slack.botToken}` },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('the Slack stand-in', () => {
  it.each(['127.0.0.1', 'localhost', '[::1]', 'LOCALHOST'])('answers requests addressed to %s', async (name) => {
    const { port } = new URL(slack.url);
    const answer = await post('/api/auth.test', `${name}:${port}`);
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toMatchObject({ ok: true });
    expect(logged).toEqual([]);
  });

  it.each(['attacker.example', '127.0.0.1.nip.io', 'localhost.attacker.example', '127.0.0.2'])(
    'refuses requests addressed to %j, saying why, and does nothing they ask',
    async (name) => {
      const { port } = new URL(slack.url);
      const answer = await post(
        '/api/chat.postMessage',
        `${name}:${port}`,
        JSON.stringify({ channel: 'C0GENERAL', text: 'from another site' }),
      );
      expect(answer.status).toBe(403);
      expect(JSON.parse(answer.body)).toEqual({
        ok: false,
        error: 'unknown_host',
        detail: `the Slack stand-in answers only requests addressed to 127.0.0.1, localhost or [::1], and this one names Host ${JSON.stringify(`${name}:${port}`)}`,
      });
      expect(slack.callsTo('chat.postMessage')).toEqual([]);
      expect(logged).toEqual([
        expect.stringMatching(/^slack stand-in: POST \/api\/chat\.postMessage refused \(403\): /),
      ]);
    },
  );

  it('refuses a Socket Mode connection addressed to another name, and takes one addressed to loopback', async () => {
    const url = slack.socketMode.url(slack.url);
    const refused = new WebSocket(url, { headers: { host: 'attacker.example' } });
    refused.on('error', () => undefined); // the refusal itself
    const status = await new Promise<number>((resolve) => {
      refused.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
      refused.on('open', () => resolve(101));
    });
    refused.terminate();
    expect(status).toBe(401);
    const taken = new WebSocket(url);
    await new Promise((resolve, reject) => {
      taken.once('open', resolve);
      taken.once('error', reject);
    });
    taken.close();
  });
});
