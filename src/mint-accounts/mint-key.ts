import { isIP } from 'node:net';
import { isPlaceholderText } from '../config/config-schema.js';

/** The longest API key taken: far beyond any real one, short enough to be sure it is not a paste gone wrong. */
export const MAX_KEY_CHARS = 256;
/** Shorter than this cannot be a key a service issues (and its last four characters would be most of it). */
export const MIN_KEY_CHARS = 8;

export type Checked<T> = { ok: true; value: T } | { ok: false; problem: string };

/**
 * An API key as pasted into the connect form: the spaces or line break a copy brings along at either end
 * are dropped; what is left must be one piece of visible ASCII, as the `x-api-key` header carries it. The
 * problems never quote the key.
 */
export function checkMintKey(raw: string | null | undefined): Checked<string> {
  const key = (raw ?? '').trim();
  if (!key) return { ok: false, problem: 'Enter the API key the Mint service issued to your organization.' };
  if (/\s/.test(key))
    return {
      ok: false,
      problem: 'An API key has no spaces or line breaks: copy only the key itself, without any text around it.',
    };
  if (key.length > MAX_KEY_CHARS)
    return {
      ok: false,
      problem: `This is ${key.length} characters long; an API key is at most ${MAX_KEY_CHARS}. Copy only the key itself.`,
    };
  if (key.length < MIN_KEY_CHARS)
    return { ok: false, problem: `This is too short to be an API key (at least ${MIN_KEY_CHARS} characters).` };
  if (!/^[\x21-\x7E]+$/.test(key))
    return {
      ok: false,
      problem: 'An API key is made of letters, digits and punctuation only (no accents, symbols or emoji).',
    };
  if (isPlaceholderText(key))
    return { ok: false, problem: 'This looks like a placeholder, not a key: paste the key itself.' };
  return { ok: true, value: key };
}

/** All that is ever shown of a key. */
export function lastFour(key: string): string {
  return key.slice(-4);
}

/**
 * A workspace's own base URL for the Mint service (when the operator allows one): https to a public address.
 * This host and private networks (127.x, 10.x, 192.168.x, 169.254.x, ...) are refused, so a workspace's
 * admin cannot make the app call services beside it, unless the operator's own MINT_API_BASE_URL is on this
 * host (a development setup with the mock service: then http to this host is taken too). No credentials,
 * query or fragment: the key travels in its own header, and `/v1/...` paths are appended.
 */
export function checkMintBaseUrl(raw: string | null | undefined, operatorBaseUrl: string): Checked<string | undefined> {
  const text = (raw ?? '').trim();
  if (!text) return { ok: true, value: undefined };
  const problem = 'Enter the base URL of the Mint service, such as https://mint.example.com.';
  if (text.length > 500 || !URL.canParse(text)) return { ok: false, problem };
  const url = new URL(text);
  const development = isLoopback(new URL(operatorBaseUrl).hostname);
  if (isPrivate(url.hostname) && !(development && isLoopback(url.hostname)))
    return {
      ok: false,
      problem: 'The base URL must be a public address of the Mint service, not this host or a private network.',
    };
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && development && isLoopback(url.hostname)))
    return { ok: false, problem: 'The base URL must start with https://.' };
  if (url.username || url.password)
    return { ok: false, problem: 'Leave the user name and password out of the URL: the API key is sent on its own.' };
  if (url.search || url.hash) return { ok: false, problem: 'The base URL has no ?query or #fragment.' };
  return { ok: true, value: `${url.origin}${url.pathname.replace(/\/+$/, '')}` };
}

/** This host, or an address of a private, link-local or unique-local network, written as such. */
function isPrivate(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (isLoopback(host) || host.endsWith('.localhost') || host === '0.0.0.0' || host === '::') return true;
  if (isIP(host) === 4) {
    const [a = 0, b = 0] = host.split('.').map(Number);
    return (
      a === 10 ||
      a === 127 ||
      a === 0 ||
      (a === 172 && b >= 16 && b <= 31) ||
      (a === 192 && b === 168) ||
      (a === 169 && b === 254) ||
      (a === 100 && b >= 64 && b <= 127)
    );
  }
  if (isIP(host) === 6) return /^(fc|fd|fe8|fe9|fea|feb)/.test(host) || host.startsWith('::ffff:');
  return false;
}

function isLoopback(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '');
  if (host === 'localhost') return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  return host === '::1';
}
