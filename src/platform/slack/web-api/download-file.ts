import { request, type Dispatcher } from 'undici';
import { stringFieldOf } from '../../unknown-fields.js';

export interface DownloadOptions {
  botToken: string;
  /** The app's SLACK_API_URL: files served from its origin are Slack's too (a proxy, GovSlack, tests). */
  slackApiUrl: string;
  /** More bytes than this and the download stops. */
  maxBytes: number;
  deadlineMs?: number;
  dispatcher?: Dispatcher;
}

export type Download =
  | { ok: true; bytes: Buffer }
  | {
      ok: false;
      reason: 'not_slack' | 'too_large' | 'refused' | 'not_found' | 'not_a_file' | 'failed';
      detail: string;
    };

const DEFAULT_DEADLINE_MS = 15_000;

/**
 * Downloads a file a user shared with the app (a file_input's `url_private_download`), with the bot token,
 * as Slack requires for private files (the files:read scope). The token is only ever sent to Slack: the
 * URL must be on a Slack host or on the origin of SLACK_API_URL. At most `maxBytes` are read, whatever
 * size the file claims, within a deadline.
 */
export async function downloadSlackFile(url: string, options: DownloadOptions): Promise<Download> {
  if (!isSlackFileUrl(url, options.slackApiUrl)) {
    return { ok: false, reason: 'not_slack', detail: 'the file is not on a Slack host' };
  }
  try {
    const response = await request(url, {
      method: 'GET',
      headers: { authorization: `Bearer ${options.botToken}` },
      signal: AbortSignal.timeout(options.deadlineMs ?? DEFAULT_DEADLINE_MS),
      ...(options.dispatcher ? { dispatcher: options.dispatcher } : {}),
    }); // undici follows no redirect: the token goes to the URL given, nowhere else
    const status = response.statusCode;
    if (status !== 200) {
      await response.body.dump();
      if (status === 401 || status === 403) return { ok: false, reason: 'refused', detail: `HTTP ${status}` };
      if (status === 404 || status === 410) return { ok: false, reason: 'not_found', detail: `HTTP ${status}` };
      return { ok: false, reason: 'failed', detail: `HTTP ${status}` };
    }
    // Without access Slack answers a sign-in page with 200 rather than an error status.
    const type = String(response.headers['content-type'] ?? '');
    if (/^text\/html/i.test(type)) {
      await response.body.dump();
      return { ok: false, reason: 'not_a_file', detail: 'Slack answered with a web page instead of the file' };
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of response.body) {
      const bytes: unknown = chunk; // undici's body yields Buffers, typed any
      if (!Buffer.isBuffer(bytes)) throw new TypeError('the body gave something other than bytes');
      size += bytes.length;
      if (size > options.maxBytes) {
        response.body.destroy();
        return { ok: false, reason: 'too_large', detail: `more than ${options.maxBytes} bytes` };
      }
      chunks.push(bytes);
    }
    return { ok: true, bytes: Buffer.concat(chunks) };
  } catch (error) {
    const name = error instanceof Error ? error.name : '';
    const code = stringFieldOf(error, 'code');
    return { ok: false, reason: 'failed', detail: name === 'TimeoutError' ? 'no answer in time' : (code ?? name) };
  }
}

function isSlackFileUrl(url: string, slackApiUrl: string): boolean {
  if (!URL.canParse(url)) return false;
  const target = new URL(url);
  if (target.origin === new URL(slackApiUrl).origin) return true;
  const host = target.hostname.toLowerCase();
  return target.protocol === 'https:' && /(^|\.)(slack\.com|slack-gov\.com)$/.test(host);
}
