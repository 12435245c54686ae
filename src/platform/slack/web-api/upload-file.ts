import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import type { WebClient } from '@slack/web-api';
import { request, type Dispatcher } from 'undici';

/**
 * Where the bytes come from: a file on disk (its size is read), or a stream whose length is known (Slack
 * asks for the length before the bytes are sent).
 */
export type UploadSource = { path: string } | { stream: Readable; length: number };

export interface UploadFileRequest {
  /**
   * A conversation id (`C...`, `G...`, `D...`, `Z...`), or a user id (`U...`/`W...`): the app's DM with that
   * user. files.completeUploadExternal takes conversation ids only, and finding a DM's id with
   * conversations.open needs the im:write scope, which the app does not ask for: for a user, the introduction
   * (`initialComment`, else the title) is posted with chat.postMessage, whose answer names the DM, and the file
   * follows it there.
   */
  to: string;
  filename: string;
  /** The file's title in Slack; the file name when left out. */
  title?: string;
  /** The message that introduces the file in the conversation (mrkdwn). */
  initialComment?: string;
  threadTs?: string;
  source: UploadSource;
}

export interface UploadFileOptions {
  /** Longest the POST of the bytes may take, from its start to Slack's answer. */
  deadlineMs?: number;
  /** undici's dispatcher for the POST (tests; undici's global one when left out). */
  dispatcher?: Dispatcher;
}

export interface UploadedFile {
  fileId: string;
  /** The conversation the file was shared in (the DM's id when `to` was a user). */
  channelId: string;
}

/** Enough for a few tens of megabytes on a slow link; a CSV of 100,000 rows is about 10 MB. */
const DEFAULT_UPLOAD_DEADLINE_MS = 120_000;

/**
 * Uploads a file to a conversation the way `files.uploadV2` does: files.getUploadURLExternal (name and
 * length), a POST of the raw bytes to the upload_url it returns, then files.completeUploadExternal, which
 * shares the file with its title and introduction.
 *
 * Why not `WebClient.filesUploadV2`: in @slack/web-api 8 it holds the whole file in memory before sending it
 * (`getFileData` in dist/file-upload.js: `readFileSync` for a path, `Buffer.concat` of every chunk for a
 * stream), which a CSV export of 100,000 rows under the app's memory cap cannot afford. Here the bytes flow
 * from the disk (or the stream) to the socket in chunks.
 *
 * The two Web API calls go through the app's `client` (its deadlines, secret scrubbing and call metrics);
 * the POST goes through undici with its own deadline. Slack's upload_url is pre-signed, so the bot token is
 * not sent to it.
 */
export async function uploadFile(
  client: WebClient,
  upload: UploadFileRequest,
  options: UploadFileOptions = {},
): Promise<UploadedFile> {
  const { stream, length } = await openSource(upload.source);
  try {
    const target = await client.files.getUploadURLExternal({ filename: upload.filename, length });
    if (!target.upload_url || !target.file_id) throw new Error('files.getUploadURLExternal gave no upload_url');
    await postBytes(target.upload_url, stream, length, options);
    // The DM is found (by posting the introduction) only once the bytes are in: a failed upload posts nothing.
    const { channelId, introduced } = await conversationFor(client, upload);
    await client.files.completeUploadExternal({
      files: [{ id: target.file_id, title: upload.title ?? upload.filename }],
      channel_id: channelId,
      ...(upload.initialComment && !introduced ? { initial_comment: upload.initialComment } : {}),
      ...(upload.threadTs ? { thread_ts: upload.threadTs } : {}),
    });
    return { fileId: target.file_id, channelId };
  } finally {
    stream.destroy(); // a file opened but never sent (a failed call) must not keep its descriptor
  }
}

async function openSource(source: UploadSource): Promise<{ stream: Readable; length: number }> {
  if ('stream' in source) return source;
  const { size } = await stat(source.path);
  return { stream: createReadStream(source.path), length: size };
}

/** The conversation to share into; for a user, their DM, named by the answer to the introduction's post. */
async function conversationFor(
  client: WebClient,
  upload: UploadFileRequest,
): Promise<{ channelId: string; introduced: boolean }> {
  if (!/^[UW]/.test(upload.to)) return { channelId: upload.to, introduced: false };
  const posted = await client.chat.postMessage({
    channel: upload.to,
    text: upload.initialComment ?? upload.title ?? upload.filename,
    ...(upload.threadTs ? { thread_ts: upload.threadTs } : {}),
    unfurl_links: false,
  });
  if (!posted.channel) throw new Error('chat.postMessage named no conversation');
  return { channelId: posted.channel, introduced: true };
}

async function postBytes(url: string, body: Readable, length: number, options: UploadFileOptions): Promise<void> {
  const deadlineMs = options.deadlineMs ?? DEFAULT_UPLOAD_DEADLINE_MS;
  const response = await request(url, {
    method: 'POST',
    headers: { 'content-type': 'application/octet-stream', 'content-length': String(length) },
    body,
    signal: AbortSignal.timeout(deadlineMs),
    ...(options.dispatcher ? { dispatcher: options.dispatcher } : {}),
  });
  // Read (and drop) the answer so the connection goes back to the pool.
  const answer = (await response.body.text()).slice(0, 200);
  if (response.statusCode !== 200) {
    throw new Error(`the file upload was refused: HTTP ${response.statusCode}${answer ? ` (${answer})` : ''}`);
  }
}
