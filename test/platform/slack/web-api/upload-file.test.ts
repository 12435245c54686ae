import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Readable } from 'node:stream';
import { WebClient } from '@slack/web-api';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { uploadFile } from '../../../../src/platform/slack/web-api/upload-file.js';
import { webClientOptions } from '../../../../src/platform/slack/web-api/web-client-options.js';
import { FakeSlack } from '../../../kit/fake-slack.js';
import { TEST_CHANNEL_ID, TEST_USER_ID } from '../../../kit/slack-ids.js';

/* The upload helper against the fake Slack: the three steps of files.uploadV2, and bytes that stream. */

let slack: FakeSlack;
let client: WebClient;
let dir: string;
const counted: Array<[string, string]> = [];

beforeAll(async () => {
  slack = await new FakeSlack().start();
  dir = mkdtempSync(join(tmpdir(), 'upload-file-'));
});
afterAll(async () => {
  await slack.stop();
  rmSync(dir, { recursive: true, force: true });
});
beforeEach(() => {
  slack.reset();
  counted.length = 0;
  client = new WebClient(slack.botToken, {
    ...webClientOptions(slack.apiUrl, {
      scrub: (text) => text,
      count: (method, error) => counted.push([method, error]),
    }),
  });
});

describe('uploadFile', () => {
  it('uploads a file from disk to a user: URL asked with name and length, bytes posted, introduction posted to the DM, upload completed there', async () => {
    const path = join(dir, 'results.csv');
    const text = 'row,outcome\n' + Array.from({ length: 2_000 }, (_, i) => `${i + 1},done,é✓`).join('\n');
    writeFileSync(path, text);

    const uploaded = await uploadFile(client, {
      to: TEST_USER_ID,
      filename: 'results.csv',
      title: 'Bulk job results',
      initialComment: 'Your results',
      source: { path },
    });

    expect(uploaded.channelId).toBe(`D${TEST_USER_ID.slice(1)}`);
    const asked = slack.callsTo('files.getUploadURLExternal')[0];
    expect(asked?.params).toMatchObject({ filename: 'results.csv', length: String(Buffer.byteLength(text)) });
    expect(asked?.token).toBe(slack.botToken);
    // Without im:write there is no conversations.open: the DM is named by the answer to the introduction's post.
    expect(slack.callsTo('conversations.open')).toHaveLength(0);
    const introduction = slack.callsTo('chat.postMessage')[0];
    expect(introduction?.params).toMatchObject({ channel: TEST_USER_ID, text: 'Your results' });
    const completed = slack.callsTo('files.completeUploadExternal')[0];
    expect(completed?.params).toMatchObject({
      channel_id: uploaded.channelId,
      files: [{ id: uploaded.fileId, title: 'Bulk job results' }],
    });
    expect(completed?.params.initial_comment).toBeUndefined();
    expect(slack.uploadsTo(uploaded.channelId).map((u) => u.fileId)).toEqual([uploaded.fileId]);
    expect(slack.uploadedText(uploaded.fileId)).toBe(text);
    // The Web API calls went through the app's client, so they were counted like every other call.
    expect(counted).toEqual([
      ['files.getUploadURLExternal', 'ok'],
      ['chat.postMessage', 'ok'],
      ['files.completeUploadExternal', 'ok'],
    ]);
  });

  it('uploads a stream of known length to a channel with its comment, titled by its file name by default', async () => {
    const text = 'a,b\n1,2\n';
    const uploaded = await uploadFile(client, {
      to: TEST_CHANNEL_ID,
      filename: 'x.csv',
      initialComment: 'Here',
      source: { stream: Readable.from([Buffer.from(text)]), length: Buffer.byteLength(text) },
    });
    expect(uploaded.channelId).toBe(TEST_CHANNEL_ID);
    expect(slack.callsTo('chat.postMessage')).toHaveLength(0);
    expect(slack.uploads.get(uploaded.fileId)?.completed?.initialComment).toBe('Here');
    expect(slack.uploads.get(uploaded.fileId)?.completed?.title).toBe('x.csv');
    expect(slack.uploadedText(uploaded.fileId)).toBe(text);
  });

  it('fails, without completing, when the upload service refuses the bytes', async () => {
    const path = join(dir, 'refused.csv');
    writeFileSync(path, 'a\n1\n');
    slack.answerNext('files.getUploadURLExternal', {
      body: { ok: true, upload_url: `${slack.url}/upload/F_UNKNOWN`, file_id: 'F_UNKNOWN' },
    });
    await expect(uploadFile(client, { to: TEST_USER_ID, filename: 'refused.csv', source: { path } })).rejects.toThrow(
      /HTTP 404/,
    );
    expect(slack.callsTo('files.completeUploadExternal')).toHaveLength(0);
    expect(slack.callsTo('chat.postMessage')).toHaveLength(0);
  });

  it('fails with Slack error when the upload URL is refused', async () => {
    const path = join(dir, 'x.csv');
    writeFileSync(path, 'a\n1\n');
    slack.answerNext('files.getUploadURLExternal', { body: { ok: false, error: 'not_allowed_token_type' } });
    await expect(uploadFile(client, { to: TEST_CHANNEL_ID, filename: 'x.csv', source: { path } })).rejects.toThrow(
      /not_allowed_token_type/,
    );
  });

  it('gives up on an upload service that does not answer within the deadline', async () => {
    const silent = createServer(() => undefined); // reads nothing, answers nothing
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const path = join(dir, 'slow.csv');
      writeFileSync(path, 'a\n1\n');
      slack.answerNext('files.getUploadURLExternal', {
        body: { ok: true, upload_url: `http://127.0.0.1:${port(silent)}/upload`, file_id: 'F_SILENT' },
      });
      const started = Date.now();
      await expect(
        uploadFile(client, { to: TEST_CHANNEL_ID, filename: 'slow.csv', source: { path } }, { deadlineMs: 300 }),
      ).rejects.toThrow();
      expect(Date.now() - started).toBeLessThan(3_000);
      expect(slack.callsTo('files.completeUploadExternal')).toHaveLength(0);
    } finally {
      silent.closeAllConnections();
      silent.close();
    }
  });

  it('streams: 96 MB go out without the process holding them (memory grows by far less than the file)', async () => {
    // An upload service in a process of its own that counts bytes and keeps none: what it receives is not
    // charged to this process's memory (the fake keeps what it receives, in this process).
    const sink = spawn(process.execPath, ['-e', SINK], { stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      const lines = createInterface({ input: sink.stdout });
      const next = () => new Promise<string>((resolve) => lines.once('line', resolve));
      const sinkPort = Number(await next());
      const total = 96 * 1024 * 1024;
      const chunk = Buffer.alloc(64 * 1024, 97);
      const lazily = Readable.from(
        (function* () {
          for (let sent = 0; sent < total; sent += chunk.length) yield chunk; // one buffer again and again: no garbage
        })(),
      );
      slack.answerNext('files.getUploadURLExternal', {
        body: { ok: true, upload_url: `http://127.0.0.1:${sinkPort}/upload`, file_id: 'F_BIG' },
      });
      slack.answerNext('files.completeUploadExternal', { body: { ok: true, files: [{ id: 'F_BIG' }] } });
      const received = next();
      const before = process.memoryUsage().arrayBuffers;
      let peak = 0;
      const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().arrayBuffers - before)), 5);
      try {
        await uploadFile(client, {
          to: TEST_CHANNEL_ID,
          filename: 'big.csv',
          source: { stream: lazily, length: total },
        });
      } finally {
        clearInterval(sampler);
      }
      expect(Number(await received)).toBe(total);
      expect(peak).toBeLessThan(16 * 1024 * 1024); // holding the file would add 96 MB of array buffers
    } finally {
      sink.kill();
    }
  });
});

/** Prints its port, then the byte count of the one upload it receives. */
const SINK = `
const server = require('node:http').createServer((req, res) => {
  let n = 0;
  req.on('data', (c) => (n += c.length));
  req.on('end', () => { res.writeHead(200).end('OK'); console.log(n); });
});
server.listen(0, '127.0.0.1', () => console.log(server.address().port));
`;

function port(server: Server): number {
  return (server.address() as AddressInfo).port;
}
