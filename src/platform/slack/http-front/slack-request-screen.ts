import type { IncomingMessage } from 'node:http';
import { parse } from 'node:querystring';
import { isValidSlackRequest } from '@slack/bolt';

/**
 * Slack's payloads are kilobytes; the largest the app gets (a deletion form with ten full boxes of IDs) is
 * well under 100 KB. Bolt's own default is 4 MB.
 */
export const SLACK_BODY_LIMIT_BYTES = 256 * 1024;
/** Slack's rule, both ways: a request older, or newer, than this is refused (replays, forged clocks). */
const MAX_CLOCK_SKEW_SEC = 5 * 60;
/** Slack waits 3 s for an answer: a body still arriving after 2 s is not Slack's. */
const BODY_READ_DEADLINE_MS = 2_000;

export type Screened = { ok: true; rawBody: Buffer } | { ok: false; status: 400 | 401 | 408 | 413; reason: string };

/**
 * Reads and checks one request for the Slack endpoint before Bolt sees it: at most SLACK_BODY_LIMIT_BYTES
 * are read (a larger declared length is refused without reading), the timestamp must be within five minutes
 * of now in either direction, the signature must be Slack's, and the body must be an object (a signed
 * `payload=null` would otherwise go unanswered inside Bolt).
 */
export async function screenSlackRequest(
  req: IncomingMessage,
  signingSecret: string,
  nowMs = Date.now(),
): Promise<Screened> {
  const declared = Number(req.headers['content-length']);
  if (declared > SLACK_BODY_LIMIT_BYTES) return { ok: false, status: 413, reason: 'body too large (declared)' };
  // The headers are checked before any of the body is read: a request that cannot be Slack's costs nothing.
  const timestamp = singleHeader(req, 'x-slack-request-timestamp');
  const signature = singleHeader(req, 'x-slack-signature');
  const timestampSec = timestamp !== undefined && /^\d{1,12}$/.test(timestamp) ? Number(timestamp) : Number.NaN;
  if (!signature || !Number.isSafeInteger(timestampSec))
    return { ok: false, status: 401, reason: 'missing signature headers' };
  if (Math.abs(nowMs / 1000 - timestampSec) > MAX_CLOCK_SKEW_SEC) {
    return { ok: false, status: 401, reason: 'timestamp more than 5 minutes from now' };
  }
  const read = await readCapped(req, SLACK_BODY_LIMIT_BYTES, BODY_READ_DEADLINE_MS);
  if (read === 'too large') return { ok: false, status: 413, reason: 'body too large' };
  if (read === 'too slow') return { ok: false, status: 408, reason: 'body not sent in time' };
  const rawBody = read;
  const body = rawBody.toString('utf8');
  const headers = { 'x-slack-signature': signature, 'x-slack-request-timestamp': timestampSec };
  if (!isValidSlackRequest({ signingSecret, body, headers, nowMilliseconds: nowMs })) {
    return { ok: false, status: 401, reason: 'bad signature' };
  }
  if (!isObjectBody(body, req.headers['content-type']))
    return { ok: false, status: 400, reason: 'body is not an object' };
  return { ok: true, rawBody };
}

/**
 * The body, or why not: as soon as it passes `limit` bytes, or when it has not all arrived within `deadlineMs`
 * (Slack sends kilobytes at once; a trickle is someone holding a place in the bounded reads).
 */
async function readCapped(
  req: IncomingMessage,
  limit: number,
  deadlineMs: number,
): Promise<Buffer | 'too large' | 'too slow'> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const settle = (result: Buffer | 'too large' | 'too slow' | Error) => {
      clearTimeout(timer);
      req.off('data', onData).off('end', onEnd).off('error', onError);
      if (result instanceof Error) reject(result);
      else resolve(result);
    };
    const timer = setTimeout(() => {
      settle('too slow');
      req.destroy();
    }, deadlineMs);
    const onData = (chunk: Buffer | string) => {
      const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk);
      size += buffer.length;
      if (size <= limit) return void chunks.push(buffer);
      // Keep nothing more, and keep the connection: the client gets its 413 before it is closed (slack-http-server).
      req.pause();
      settle('too large');
    };
    const onEnd = () => settle(Buffer.concat(chunks));
    const onError = (error: Error) => settle(error);
    req.on('data', onData).on('end', onEnd).on('error', onError);
  });
}

function singleHeader(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return typeof value === 'string' ? value : undefined;
}

/**
 * A form key that is `payload`, or is percent-encoded and so may be `payload` once decoded. A slash command's
 * form has none: it needs no parse here (Bolt parses it anyway), and commands are most of the traffic.
 */
const MAYBE_PAYLOAD_KEY = /(?:^|&)(?:payload|[^&=]*%[^&=]*)(?:[=&]|$)/;

/**
 * What Bolt will parse it into must be an object: a form whose `payload` is a JSON object, or a JSON object.
 * The form is parsed as Bolt parses it (node:querystring; a `payload` given twice is not parsed as JSON).
 */
function isObjectBody(body: string, contentType: string | undefined): boolean {
  try {
    if (contentType === 'application/x-www-form-urlencoded') {
      if (!MAYBE_PAYLOAD_KEY.test(body)) return true;
      const { payload } = parse(body);
      return typeof payload !== 'string' || isPlainObject(JSON.parse(payload));
    }
    return isPlainObject(JSON.parse(body));
  } catch {
    return false;
  }
}

function isPlainObject(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
