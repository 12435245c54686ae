import { connect } from 'node:net';
import { WebClient } from '@slack/web-api';
import { WebSocket } from 'ws';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { messageProblems, viewProblems } from './block-kit-limits.js';
import { FakeSlack } from './fake-slack.js';

/* The fake must reject what Slack rejects, or the end-to-end tests that rely on it prove nothing. */

const section = (text: string) => ({ type: 'section', text: { type: 'mrkdwn', text } });
const input = (id: string) => ({
  type: 'input',
  block_id: id,
  label: { type: 'plain_text', text: 'L' },
  element: { type: 'plain_text_input', action_id: 'a' },
});
const modal = (blocks: unknown[], extra: Record<string, unknown> = {}) => ({
  type: 'modal',
  title: { type: 'plain_text', text: 'T' },
  submit: { type: 'plain_text', text: 'Go' },
  blocks,
  ...extra,
});

describe('Block Kit limit checks', () => {
  it('accept a well-formed message and modal', () => {
    expect(messageProblems({ text: 'hi', blocks: [section('a'), { type: 'divider' }] })).toEqual([]);
    expect(viewProblems(modal([input('b1'), input('b2')]))).toEqual([]);
  });

  it.each([
    [
      '51 blocks',
      { text: 't', blocks: Array.from({ length: 51 }, () => ({ type: 'divider' })) },
      'blocks: must have at most 50 items',
    ],
    [
      'section text over 3000',
      { text: 't', blocks: [section('x'.repeat(3001))] },
      'blocks[0].text.text: must be at most 3000',
    ],
    ['empty text', { text: 't', blocks: [section('')] }, 'must be 1 or more characters'],
    [
      'header over 150',
      { text: 't', blocks: [{ type: 'header', text: { type: 'plain_text', text: 'h'.repeat(151) } }] },
      'at most 150',
    ],
    [
      'button text over 75',
      {
        text: 't',
        blocks: [
          {
            type: 'actions',
            elements: [{ type: 'button', action_id: 'a', text: { type: 'plain_text', text: 'b'.repeat(76) } }],
          },
        ],
      },
      'at most 75',
    ],
    [
      'button value over 2000',
      {
        text: 't',
        blocks: [
          {
            type: 'actions',
            elements: [
              { type: 'button', action_id: 'a', value: 'v'.repeat(2001), text: { type: 'plain_text', text: 'b' } },
            ],
          },
        ],
      },
      'at most 2000',
    ],
    [
      '26 actions',
      {
        text: 't',
        blocks: [
          {
            type: 'actions',
            elements: Array.from({ length: 26 }, (_, i) => ({
              type: 'button',
              action_id: `a${i}`,
              text: { type: 'plain_text', text: 'b' },
            })),
          },
        ],
      },
      'must have 1 to 25 items',
    ],
    [
      '11 fields',
      {
        text: 't',
        blocks: [{ type: 'section', fields: Array.from({ length: 11 }, () => ({ type: 'mrkdwn', text: 'f' })) }],
      },
      'at most 10 items',
    ],
    [
      '11 context elements',
      {
        text: 't',
        blocks: [{ type: 'context', elements: Array.from({ length: 11 }, () => ({ type: 'mrkdwn', text: 'c' })) }],
      },
      'must have 1 to 10 items',
    ],
    [
      'duplicate block ids',
      {
        text: 't',
        blocks: [
          { ...section('a'), block_id: 'x' },
          { ...section('b'), block_id: 'x' },
        ],
      },
      'block_id must be unique',
    ],
    ['blocks without fallback text', { blocks: [section('a')] }, 'fallback text is required'],
    ['an input block in a message', { text: 't', blocks: [input('i')] }, 'input blocks belong in modals'],
    [
      'over 12,000 characters of block text in all',
      { text: 't', blocks: Array.from({ length: 5 }, () => section('x'.repeat(2500))) },
      'msg_blocks_too_long',
    ],
  ])('reject a message with %s', (_name, message, expected) => {
    expect(messageProblems(message).join('\n')).toContain(expected);
  });

  it.each([
    [
      '101 blocks',
      modal(Array.from({ length: 101 }, () => ({ type: 'divider' }))),
      'blocks: must have at most 100 items',
    ],
    [
      'a title over 24',
      modal([], { title: { type: 'plain_text', text: 't'.repeat(25) } }),
      'title.text: must be at most 24',
    ],
    ['inputs without submit', { ...modal([input('a')]), submit: undefined }, 'submit: is required'],
    [
      'private_metadata over 3000',
      modal([], { private_metadata: 'p'.repeat(3001) }),
      'private_metadata: must be at most 3000',
    ],
    [
      'a number input without is_decimal_allowed',
      modal([{ ...input('n'), element: { type: 'number_input', action_id: 'n' } }]),
      'is_decimal_allowed: is required',
    ],
    [
      'a bad initial date',
      modal([{ ...input('d'), element: { type: 'datepicker', action_id: 'd', initial_date: '01/02/2027' } }]),
      'must be YYYY-MM-DD',
    ],
    [
      'initial options not among the options',
      modal([
        {
          ...input('c'),
          element: {
            type: 'checkboxes',
            action_id: 'c',
            options: [{ text: { type: 'plain_text', text: 'A' }, value: 'a' }],
            initial_options: [{ text: { type: 'plain_text', text: 'B' }, value: 'b' }],
          },
        },
      ]),
      'must exactly match',
    ],
  ])('reject a view with %s', (_name, view, expected) => {
    expect(viewProblems(view).join('\n')).toContain(expected);
  });
});

describe('FakeSlack', () => {
  let slack: FakeSlack;
  let client: WebClient;

  beforeAll(async () => {
    slack = await new FakeSlack().start();
    client = new WebClient(slack.botToken, {
      slackApiUrl: slack.apiUrl,
      retryConfig: { retries: 0 },
      rejectRateLimitedCalls: true,
    });
  });
  afterAll(async () => slack.stop());
  beforeEach(() => slack.reset());

  it('records calls with their parameters and token', async () => {
    await client.chat.postMessage({ channel: 'C1', text: 'hello', blocks: [section('hello')] as never });
    expect(slack.callsTo('chat.postMessage')).toEqual([
      expect.objectContaining({
        token: slack.botToken,
        params: expect.objectContaining({ channel: 'C1', text: 'hello', blocks: [section('hello')] }),
      }),
    ]);
  });

  it('answers like Slack: invalid_auth, invalid_blocks, invalid_arguments', async () => {
    await expect(new WebClient('xoxb-wrong', { slackApiUrl: slack.apiUrl }).auth.test()).rejects.toMatchObject({
      data: { error: 'invalid_auth' },
    });
    await expect(
      client.chat.postMessage({ channel: 'C1', text: 't', blocks: [section('x'.repeat(3001))] as never }),
    ).rejects.toMatchObject({ data: { error: 'invalid_blocks' } });
    await expect(
      client.views.open({
        trigger_id: slack.triggerId(),
        view: modal([], { title: { type: 'plain_text', text: 't'.repeat(30) } }) as never,
      }),
    ).rejects.toMatchObject({ data: { error: 'invalid_arguments' } });
  });

  it('expires a trigger after 3 seconds and refuses to use one twice', async () => {
    const fresh = slack.triggerId();
    await expect(client.views.open({ trigger_id: fresh, view: modal([]) as never })).resolves.toMatchObject({
      ok: true,
      view: { id: expect.any(String) },
    });
    await expect(client.views.open({ trigger_id: fresh, view: modal([]) as never })).rejects.toMatchObject({
      data: { error: 'exchanged_trigger_id' },
    });
    await expect(
      client.views.open({ trigger_id: slack.triggerId(Date.now() - 3_100), view: modal([]) as never }),
    ).rejects.toMatchObject({ data: { error: 'expired_trigger_id' } });
    await expect(client.views.open({ trigger_id: 'made-up', view: modal([]) as never })).rejects.toMatchObject({
      data: { error: 'invalid_trigger_id' },
    });
  });

  it('rejects a views.update with a stale hash', async () => {
    const opened = await client.views.open({ trigger_id: slack.triggerId(), view: modal([]) as never });
    const updated = await client.views.update({
      view_id: opened.view?.id ?? '',
      hash: opened.view?.hash ?? '',
      view: modal([section('v2')]) as never,
    });
    await expect(
      client.views.update({ view_id: opened.view?.id ?? '', hash: opened.view?.hash ?? '', view: modal([]) as never }),
    ).rejects.toMatchObject({ data: { error: 'hash_conflict' } });
    expect(updated.view?.hash).not.toBe(opened.view?.hash);
  });

  it('shows inline errors under a modal until its next submission', async () => {
    const opened = await client.views.open({ trigger_id: slack.triggerId(), view: modal([input('b1')]) as never });
    const id = opened.view?.id ?? '';
    slack.applySubmissionAck(id, { response_action: 'errors', errors: { b1: 'Required' } });
    expect(slack.viewErrors.get(id)).toEqual({ b1: 'Required' });
    slack.applySubmissionAck(id, { response_action: 'update', view: modal([section('Creating…')]) });
    expect(slack.viewErrors.get(id)).toBeUndefined();
  });

  it('gives canned answers such as a 429 with Retry-After', async () => {
    slack.answerNext('chat.postMessage', { status: 429, headers: { 'retry-after': '30' } });
    await expect(client.chat.postMessage({ channel: 'C1', text: 't' })).rejects.toMatchObject({
      code: 'slack_webapi_rate_limited_error',
      retryAfter: 30,
    });
  });

  it('serves response URLs, checking limits and failing on demand', async () => {
    const url = slack.responseUrl();
    expect(
      (await fetch(url, { method: 'POST', body: JSON.stringify({ text: 'ok', replace_original: true }) })).status,
    ).toBe(200);
    expect(
      (await fetch(url, { method: 'POST', body: JSON.stringify({ blocks: [section('no fallback')] }) })).status,
    ).toBe(400);
    slack.failResponseUrl(url, 404);
    expect((await fetch(url, { method: 'POST', body: JSON.stringify({ text: 'late' }) })).status).toBe(404);
    expect(slack.responsesTo(url).map((r) => r.body.text)).toEqual(['ok', undefined, 'late']);
  });

  it('serves a hosted file behind url_private_download to the bot token only', async () => {
    const file = slack.hostFile({ content: 'email\na@example.com\n', name: 'recipients.csv' });
    expect(file).toMatchObject({ name: 'recipients.csv', size: 20, filetype: 'csv', mimetype: 'text/csv' });
    const get = (url: string, token?: string) =>
      fetch(url, token ? { headers: { authorization: `Bearer ${token}` } } : {});
    const ok = await get(file.url_private_download, slack.botToken);
    expect(ok.status).toBe(200);
    expect(await ok.text()).toBe('email\na@example.com\n');
    expect((await get(file.url_private_download)).status).toBe(401);
    expect((await get(file.url_private_download, 'xoxb-someone-else')).status).toBe(401);
    expect((await get(file.url_private_download.replace(file.id, 'F404'), slack.botToken)).status).toBe(404);
    expect(slack.fileDownloads.map((d) => d.status)).toEqual([200, 401, 401, 404]);
  });

  it('records an upload only once completed, and refuses a completion before the bytes or of the wrong size', async () => {
    const target = await client.files.getUploadURLExternal({ filename: 'r.csv', length: 3 });
    const fileId = target.file_id ?? '';
    await expect(
      client.files.completeUploadExternal({ files: [{ id: fileId }], channel_id: 'D0TESTDM1' }),
    ).rejects.toMatchObject({ data: { error: 'file_upload_incomplete' } });
    expect((await fetch(target.upload_url ?? '', { method: 'POST', body: 'abcd' })).status).toBe(200);
    await expect(
      client.files.completeUploadExternal({ files: [{ id: fileId }], channel_id: 'D0TESTDM1' }),
    ).rejects.toMatchObject({ data: { error: 'file_upload_size_mismatch' } });
    await expect(
      client.files.completeUploadExternal({ files: [{ id: fileId }], channel_id: 'U0ALICE01' }),
    ).rejects.toMatchObject({ data: { error: 'invalid_arguments' } }); // a user id is not a conversation
    const again = await client.files.getUploadURLExternal({ filename: 'r.csv', length: 3 });
    await fetch(again.upload_url ?? '', { method: 'POST', body: 'abc' });
    await client.files.completeUploadExternal({
      files: [{ id: again.file_id ?? '', title: 'R' }],
      channel_id: 'D0TESTDM1',
    });
    expect(slack.uploadsTo('D0TESTDM1').map((u) => [u.fileId, u.completed?.title])).toEqual([[again.file_id, 'R']]);
    expect(slack.uploadedText(again.file_id ?? '')).toBe('abc');
  });
});

describe('FakeSlack given requests Slack would refuse', () => {
  let slack: FakeSlack;
  const logged: string[] = [];
  beforeAll(async () => {
    slack = await new FakeSlack({ log: (line) => logged.push(line) }).start();
  });
  afterAll(async () => slack.stop());
  beforeEach(() => {
    slack.reset();
    logged.length = 0;
  });

  const post = (url: string, body: string, type = 'application/json') =>
    fetch(url, { method: 'POST', headers: { 'content-type': type }, body });

  it('answers a response_url post that is not JSON as Slack does (400 invalid_payload), and goes on serving', async () => {
    const url = slack.responseUrl();
    for (const body of ['{"text": "cut sho', '[1, 2]', 'null']) {
      const refused = await post(url, body);
      expect([refused.status, await refused.text()]).toEqual([400, 'invalid_payload']);
    }
    expect(logged).toEqual([
      expect.stringMatching(/^slack stand-in: POST \/response\/\S+ refused \(400 invalid_payload\): not JSON/),
      expect.stringMatching(/^slack stand-in: POST \/response\/\S+ refused \(400 invalid_payload\): not a JSON object/),
      expect.stringMatching(/^slack stand-in: POST \/response\/\S+ refused \(400 invalid_payload\): not a JSON object/),
    ]);
    expect(slack.responsesTo(url)).toEqual([]);
    const fine = await post(url, JSON.stringify({ text: 'still here' }));
    expect(fine.status).toBe(200);
    expect(slack.responsesTo(url).map((r) => r.body.text)).toEqual(['still here']);
  });

  it('answers a post to a response_url it never gave out with 404 no_service, and records nothing', async () => {
    const unknown = `${slack.url}/response/00000000-0000-0000-0000-000000000000`;
    const refused = await post(unknown, JSON.stringify({ text: 'hello?' }));
    expect([refused.status, await refused.text()]).toEqual([404, 'no_service']);
    expect(slack.responses).toEqual([]);
  });

  it('answers a Web API call whose JSON body is broken with ok:false invalid_json (or json_not_object)', async () => {
    const call = async (body: string) => {
      const response = await fetch(`${slack.apiUrl}chat.postMessage`, {
        method: 'POST',
        headers: { 'content-type': 'application/json; charset=utf-8', authorization: `Bearer ${slack.botToken}` },
        body,
      });
      return [response.status, await response.json()];
    };
    expect(await call('{"channel": "C1", "text": ')).toEqual([200, { ok: false, error: 'invalid_json' }]);
    expect(await call('["C1"]')).toEqual([200, { ok: false, error: 'json_not_object' }]);
    expect(slack.failedCalls.map((c) => c.answer?.error)).toEqual(['invalid_json', 'json_not_object']);
    expect(logged).toHaveLength(2);
    expect(await call(JSON.stringify({ channel: 'C1', text: 'fine' }))).toEqual([
      200,
      expect.objectContaining({ ok: true }),
    ]);
  });

  it('survives a request cut off in the middle of its body: one line logged, the next request served', async () => {
    const { hostname, port } = new URL(slack.url);
    await new Promise<void>((resolve, reject) => {
      const socket = connect(Number(port), hostname, () => {
        socket.write(
          `POST /api/chat.postMessage HTTP/1.1\r\nHost: ${hostname}\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n{"channel":`,
        );
        setImmediate(() => socket.destroy());
      });
      socket.on('close', () => resolve());
      socket.on('error', reject);
    });
    await expect
      .poll(() => logged)
      .toEqual([expect.stringMatching(/^slack stand-in: POST \/api\/chat\.postMessage failed: /)]);
    const url = slack.responseUrl();
    expect((await post(url, JSON.stringify({ text: 'next' }))).status).toBe(200);
  });
});

describe('FakeSlack as `npm run sandbox` ships it (no test hooks)', () => {
  let slack: FakeSlack;
  beforeAll(async () => {
    slack = await new FakeSlack({ log: () => undefined }).start();
  });
  afterAll(async () => slack.stop());

  it('serves no silent response URL, no Socket Mode and no benchmark routes', async () => {
    expect((await fetch(`${slack.url}/silent/x`, { method: 'POST', body: '{}' })).status).toBe(404);
    slack.benchTracking = true;
    expect((await fetch(`${slack.url}/__bench/arrivals`)).status).toBe(404);
    slack.benchTracking = false;
    const opened = await new Promise<string>((resolve) => {
      const socket = new WebSocket(`${slack.url.replace('http', 'ws')}/socket`);
      socket.on('open', () => resolve('open'));
      socket.on('error', () => resolve('refused'));
    });
    expect(opened).toBe('refused');
    const connections = await fetch(`${slack.apiUrl}apps.connections.open`, {
      method: 'POST',
      headers: { authorization: `Bearer ${slack.appToken}` },
    });
    expect(await connections.json()).toEqual({ ok: false, error: 'not_allowed_token_type' });
    expect(() => slack.socketMode).toThrow(/test hook/);
    expect(() => slack.silentResponseUrl()).toThrow(/test hook/);
  });
});

describe('FakeSlack records', () => {
  it('keep to their bound: the oldest go, the newest stay', async () => {
    const slack = await new FakeSlack({ maxRecords: 10 }).start();
    try {
      const client = new WebClient(slack.botToken, { slackApiUrl: slack.apiUrl, retryConfig: { retries: 0 } });
      const posted: string[] = [];
      for (let i = 0; i < 25; i += 1)
        posted.push((await client.chat.postMessage({ channel: 'C1', text: `m${i}` })).ts ?? '');
      expect(slack.calls.length).toBeLessThanOrEqual(10);
      expect(slack.calls.at(-1)?.params.text).toBe('m24');
      // The oldest message is forgotten (as Slack would, for the stand-in's purpose: memory stays bounded).
      await expect(client.chat.update({ channel: 'C1', ts: posted[0] ?? '', text: 'x' })).rejects.toMatchObject({
        data: { error: 'message_not_found' },
      });
      await client.chat.update({ channel: 'C1', ts: posted[24] ?? '', text: 'edited' });
    } finally {
      await slack.stop();
    }
  });
});
