import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { networkInterfaces } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GENERAL } from '../../sandbox/src/people.js';
import { person, useBrowserSandbox, type BrowserSandbox } from './browser-kit.js';

/*
 * The sandbox's page drives the app as whoever is picked in the switcher, so no other web page may drive it:
 * a page of another origin (here another port of 127.0.0.1, the closest neighbour there is) tries every way
 * a browser lets it send a request (simple fetches, preflighted fetches, form posts, uploads), and nothing
 * reaches the app, the stand-in or the mock Mint service. Each refusal is also checked over plain HTTP.
 */

const logged: string[] = [];
const opened = useBrowserSandbox({ log: (line) => logged.push(line) });
let s: BrowserSandbox;
let base: string;
beforeAll(() => {
  s = opened.sandbox;
  base = s.sandbox.url.replace(/\/$/, '');
});

const ALICE = person('Alice').id;
const command = { type: 'message', as: ALICE, channel: GENERAL.id, text: '/mintlink templates demo-contract 5' };
const chat = { type: 'message', as: ALICE, channel: GENERAL.id, text: 'posted by another site' };

/** A page of another origin that tries to drive the sandbox, and says what became of each try. */
function attackerPage(target: string): string {
  const script = `
    const target = ${JSON.stringify(target)};
    const command = ${JSON.stringify(command)};
    const chat = ${JSON.stringify(chat)};
    const outcome = (promise) => promise.then((r) => 'answered ' + r.type + ' ' + r.status, (e) => 'failed ' + e.name);
    function postForm(action, enctype, fields) {
      return new Promise((resolve) => {
        const frame = document.createElement('iframe');
        frame.name = 'sink' + Math.random().toString(36).slice(2);
        document.body.append(frame);
        frame.addEventListener('load', () => resolve('form answered'), { once: true });
        const form = document.createElement('form');
        Object.assign(form, { method: 'POST', action, enctype, target: frame.name });
        for (const [name, value] of fields) {
          const input = document.createElement(value instanceof File ? 'input' : 'textarea');
          input.name = name;
          if (value instanceof File) {
            input.type = 'file';
            const files = new DataTransfer();
            files.items.add(value);
            input.files = files.files;
          } else input.value = value;
          form.append(input);
        }
        document.body.append(form);
        form.submit();
      });
    }
    // A text/plain form whose one field's name and value make up a JSON body: {"…","pad":"="}.
    const asFormJson = (action) => [[JSON.stringify({ ...action, pad: '' }).slice(0, -2), '"}']];
    window.attack = async () => ({
      simpleCommand: await outcome(fetch(target + '/api/act', { method: 'POST', mode: 'no-cors', body: JSON.stringify(command) })),
      simpleChat: await outcome(fetch(target + '/api/act', { method: 'POST', mode: 'no-cors', body: JSON.stringify(chat) })),
      preflighted: await outcome(fetch(target + '/api/act', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-sandbox': '1' },
        body: JSON.stringify(chat),
      })),
      formChat: await postForm(target + '/api/act', 'text/plain', asFormJson(chat)),
      simpleUpload: await outcome(fetch(target + '/api/upload?as=${ALICE}&name=evil.csv', {
        method: 'POST',
        mode: 'no-cors',
        body: 'nft_id,email\\nnft-1,evil@example.com\\n',
      })),
      formUpload: await postForm(target + '/api/upload?as=${ALICE}&name=evil.csv', 'multipart/form-data', [
        ['file', new File(['nft_id,email\\n'], 'evil.csv', { type: 'text/csv' })],
      ]),
    });`;
  return `<!doctype html><html><head><title>another site</title></head><body><script>${script}</script></body></html>`;
}

describe('another web page in the same browser', () => {
  let attacker: Server;
  let attackerUrl: string;
  beforeAll(async () => {
    attacker = createServer((_req, res) =>
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(attackerPage(base)),
    );
    await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', resolve));
    attackerUrl = `http://127.0.0.1:${(attacker.address() as AddressInfo).port}/`;
  });
  afterAll(() => new Promise<void>((resolve) => attacker.close(() => resolve())));

  it('cannot post, run a command or upload a file through the sandbox: every try is refused', async () => {
    const { sandbox, browser } = s;
    const messagesBefore = sandbox.workspace.messages.get(GENERAL.id)?.length;
    const callsBefore = sandbox.slack.calls.length;
    const filesBefore = sandbox.slack.hostedFiles.size;
    const loggedBefore = logged.length;

    const tab = await browser.newPage();
    try {
      await tab.goto(attackerUrl);
      // Resolves once every request was answered (or refused by the browser itself): the sandbox has decided.
      const outcomes = await tab.evaluate('window.attack()');
      expect(outcomes).toEqual({
        simpleCommand: 'answered opaque 0',
        simpleChat: 'answered opaque 0',
        // The custom header makes the browser ask first (a preflight), and the sandbox does not allow it.
        preflighted: 'failed TypeError',
        formChat: 'form answered',
        simpleUpload: 'answered opaque 0',
        formUpload: 'form answered',
      });
    } finally {
      await tab.close();
    }

    // The refusals were decided before anything was read or done: nothing started that could still land.
    expect(sandbox.workspace.messages.get(GENERAL.id)?.length).toBe(messagesBefore);
    expect(sandbox.slack.calls.length).toBe(callsBefore);
    expect(sandbox.mint.requestsTo('list_templates')).toHaveLength(0);
    expect(sandbox.slack.hostedFiles.size).toBe(filesBefore);
    const refusals = logged.slice(loggedBefore);
    expect(refusals).toHaveLength(5);
    for (const line of refusals) expect(line).toMatch(/^sandbox page: refused POST \/api\/(act|upload) .*Origin/);
  });

  it('cannot show the page in a frame to steer clicks on it', async () => {
    const { browser } = s;
    const framing = createServer((_req, res) =>
      res
        .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
        .end(`<!doctype html><iframe src="${base}/?as=U0BEN0001" width="800" height="600"></iframe>`),
    );
    await new Promise<void>((resolve) => framing.listen(0, '127.0.0.1', resolve));
    const tab = await browser.newPage();
    try {
      await tab.goto(`http://127.0.0.1:${(framing.address() as AddressInfo).port}/`);
      const frame = tab.frames().find((f) => f !== tab.mainFrame());
      // Chromium replaces a frame its page refuses (frame-ancestors 'none', X-Frame-Options DENY) by an error page.
      await expect.poll(() => frame?.url()).toMatch(/^chrome-error:/);
      const page = await fetch(`${base}/`);
      expect(page.headers.get('x-frame-options')).toBe('DENY');
      expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    } finally {
      await tab.close();
      await new Promise<void>((resolve) => framing.close(() => resolve()));
    }
  });
});

describe('state-changing requests over plain HTTP', () => {
  const post = (path: string, headers: Record<string, string>, body = JSON.stringify(chat)) =>
    fetch(`${base}${path}`, { method: 'POST', headers, body });
  const own = () => ({ 'content-type': 'application/json', 'x-sandbox': '1', origin: base });

  it('are refused with 403 from another origin, even with the right headers', async () => {
    const response = await post('/api/act', { ...own(), origin: 'http://127.0.0.1:1' });
    expect(response.status).toBe(403);
    expect(await response.json()).toEqual({
      ok: false,
      error:
        'refused: the sandbox takes actions only from its own page, and this request comes from http://127.0.0.1:1',
    });
  });

  it('are refused with 403 when the browser says another site sent them', async () => {
    for (const site of ['cross-site', 'same-site']) {
      const { origin: _origin, ...headers } = own();
      const response = await post('/api/act', { ...headers, 'sec-fetch-site': site });
      expect(response.status).toBe(403);
      expect(((await response.json()) as { error: string }).error).toBe(
        `refused: the sandbox takes actions only from its own page, and this request comes from another site (Sec-Fetch-Site: ${site})`,
      );
    }
  });

  it('are refused with 415 unless they are JSON', async () => {
    for (const path of ['/api/act', '/api/upload']) {
      const response = await post(path, { ...own(), 'content-type': 'text/plain' });
      expect(response.status).toBe(415);
      expect(((await response.json()) as { error: string }).error).toBe(
        'refused: the sandbox takes only JSON here (Content-Type: application/json), and this request sends text/plain',
      );
    }
  });

  it('are refused with 403 without the X-Sandbox header that only its own page sends', async () => {
    for (const path of ['/api/act', '/api/upload']) {
      const { 'x-sandbox': _header, ...headers } = own();
      const response = await post(path, headers);
      expect(response.status).toBe(403);
      expect(((await response.json()) as { error: string }).error).toBe(
        'refused: the sandbox takes actions only from its own page, which sends the header X-Sandbox: 1',
      );
    }
    expect(s.sandbox.workspace.messages.get(GENERAL.id)?.some((m) => m.text === chat.text)).toBe(false);
  });

  it('are taken from its own page', async () => {
    const response = await post('/api/act', own());
    expect(await response.json()).toEqual({ ok: true });
    expect(s.sandbox.workspace.messages.get(GENERAL.id)?.at(-1)?.text).toBe(chat.text);
    const upload = await post(
      '/api/upload',
      own(),
      JSON.stringify({ as: ALICE, name: 'ok.csv', content: Buffer.from('a,b\n').toString('base64') }),
    );
    expect(upload.status).toBe(200);
    const { file } = (await upload.json()) as { file: { id: string; name: string } };
    expect(s.sandbox.slack.hostedFiles.get(file.id)?.content.toString()).toBe('a,b\n');
  });
});

describe('malformed requests from the page', () => {
  const headers = () => ({ 'content-type': 'application/json', 'x-sandbox': '1', origin: base });
  const act = async (body: string) => {
    const response = await fetch(`${base}/api/act`, { method: 'POST', headers: headers(), body });
    return [response.status, await response.json()];
  };

  it('are answered 400 invalid_json when the body is not JSON, with one line on the terminal', async () => {
    const before = logged.length;
    expect(await act('{"type": "message", "as": ')).toEqual([400, { ok: false, error: 'invalid_json' }]);
    expect(logged.slice(before)).toEqual(['sandbox page: refused POST /api/act (400): not JSON']);
  });

  it('are answered 400 naming the field that is wrong', async () => {
    expect(await act('null')).toEqual([400, { ok: false, error: expect.stringMatching(/^invalid action: /) }]);
    expect(await act(JSON.stringify({ type: 'message', as: ALICE, channel: GENERAL.id }))).toEqual([
      400,
      { ok: false, error: 'invalid action: text: Invalid input: expected string, received undefined' },
    ]);
    expect(await act(JSON.stringify({ type: 'launchRocket', as: ALICE }))).toEqual([
      400,
      { ok: false, error: expect.stringMatching(/^invalid action: type: /) },
    ]);
    expect(await act(JSON.stringify({ type: 'dismiss', as: ALICE, noticeId: 'one' }))).toEqual([
      400,
      { ok: false, error: 'invalid action: noticeId: Invalid input: expected number, received string' },
    ]);
    const upload = await fetch(`${base}/api/upload`, {
      method: 'POST',
      headers: headers(),
      body: JSON.stringify({ as: ALICE, name: 'a.csv', content: 'not base64!' }),
    });
    expect([upload.status, await upload.json()]).toEqual([
      400,
      { ok: false, error: expect.stringMatching(/^invalid upload: content: /) },
    ]);
  });

  it('never stop the sandbox: a body cut off halfway is logged, and the next request served', async () => {
    const before = logged.length;
    const { hostname, port } = new URL(base);
    await new Promise<void>((resolve, reject) => {
      const socket = connect(Number(port), hostname, () => {
        socket.write(
          `POST /api/act HTTP/1.1\r\nHost: ${hostname}:${port}\r\nOrigin: ${base}\r\nX-Sandbox: 1\r\n` +
            `Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"type":`,
        );
        setImmediate(() => socket.destroy());
      });
      socket.on('close', () => resolve());
      socket.on('error', reject);
    });
    await expect
      .poll(() => logged.slice(before))
      .toEqual([expect.stringMatching(/^sandbox page: POST \/api\/act failed: /)]);
    expect(await act(JSON.stringify({ type: 'dismiss', as: ALICE, noticeId: 0 }))).toEqual([200, { ok: true }]);
  });

  it('to the Slack stand-in never stop the sandbox either: a broken response_url post gets 400 invalid_payload', async () => {
    const before = logged.length;
    const url = s.sandbox.workspace.responseUrl({ channel: GENERAL.id, user: ALICE });
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"te',
    });
    expect([response.status, await response.text()]).toEqual([400, 'invalid_payload']);
    expect(logged.slice(before)).toEqual([
      expect.stringMatching(/^slack stand-in: POST \/response\/\S+ refused \(400/),
    ]);
    expect((await fetch(`${base}/api/bootstrap`)).status).toBe(200);
  });
});

/** Whether a TCP connection to address:port is taken ('open') or refused (the error's code). */
function reach(address: string, port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect({ host: address, port, timeout: 2_000 });
    socket.once('connect', () => {
      socket.destroy();
      resolve('open');
    });
    socket.once('timeout', () => {
      socket.destroy();
      resolve('timeout');
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
  });
}

describe('the app inside the sandbox', () => {
  it('listens on 127.0.0.1 only (HOST=127.0.0.1): not on the other addresses of this machine', async () => {
    const port = s.sandbox.appPort;
    expect(await reach('127.0.0.1', port)).toBe('open');
    // Linux routes all of 127.0.0.0/8 to loopback: a socket bound to every interface would take this one too.
    const others = ['127.0.0.2'];
    for (const list of Object.values(networkInterfaces()))
      for (const address of list ?? [])
        if (!address.internal && address.family === 'IPv4') others.push(address.address);
    for (const address of others) expect(await reach(address, port), address).toBe('ECONNREFUSED');
  });
});

describe('what the app sends', () => {
  it('never becomes markup on the page: `html` keys in its blocks are dropped, only the sandbox writes them', async () => {
    const { page, sandbox } = s;
    const answer = await fetch(`${sandbox.slack.apiUrl}chat.postMessage`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${sandbox.slack.botToken}` },
      body: JSON.stringify({
        channel: GENERAL.id,
        text: 'blocks with html keys',
        blocks: [
          {
            type: 'section',
            text: { type: 'mrkdwn', text: 'blocks with html keys' },
            html: '<img id="injected-block" src="/favicon.ico">',
          },
          {
            type: 'context',
            elements: [{ type: 'mrkdwn', text: 'context', html: '<b id="injected-text">x</b>' }],
          },
        ],
      }),
    });
    expect(await answer.json()).toMatchObject({ ok: true });
    await page.locator('#channel-list button', { hasText: 'general' }).click();
    await page.locator('#content .message', { hasText: 'blocks with html keys' }).waitFor();
    await page.locator('#content .message', { hasText: 'context' }).last().waitFor();
    expect(await page.locator('#injected-block, #injected-text').count()).toBe(0);
    const state = await (await fetch(`${base}/api/state?as=${ALICE}`)).text();
    expect(state).not.toContain('injected');
  });
});
