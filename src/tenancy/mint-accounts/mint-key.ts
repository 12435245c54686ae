import { isIP } from 'node:net';
import { isPlaceholderText } from '../../platform/ops/config/config-schema.js';
import { hostOf, writtenHostNotPublic } from '../../platform/mint/public-address.js';

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

/** Why a base URL on a non-public address is refused, and what to do: said the same way at every check. */
export const PUBLIC_ONLY =
  'Mintlink sends your key to public addresses only. Enter the public URL of your Mint service.';

/**
 * A workspace's own base URL for the Mint service (when the operator allows one), as written: https, to a
 * host that is not one of this host's names or addresses, a private, link-local, reserved or otherwise
 * non-public address, or the name of a metadata service (see writtenHostNotPublic); the addresses a name
 * resolves to are checked when it is saved and when each connection is made (MintAccounts). The one exception
 * is the operator's own origin (scheme, host and port of MINT_API_BASE_URL, a path of its own allowed): it is
 * trusted as the operator set it, on this host too (the mock service in development), http included. Nothing
 * else on this host is: another port of it may be a sidecar's admin or proxy API. No credentials, query or
 * fragment: the key travels in its own header, and `/v1/...` paths are appended.
 */
export function checkMintBaseUrl(raw: string | null | undefined, operatorBaseUrl: string): Checked<string | undefined> {
  const text = (raw ?? '').trim();
  if (!text) return { ok: true, value: undefined };
  const problem = 'Enter the base URL of the Mint service, such as https://mint.example.com.';
  if (text.length > 500 || !URL.canParse(text)) return { ok: false, problem };
  const url = new URL(text);
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    return { ok: false, problem: 'The base URL must start with https://.' };
  const operators = isOperatorsOrigin(url.href, operatorBaseUrl);
  const notPublic = operators ? undefined : writtenHostNotPublic(url.hostname, { allowLoopback: false });
  if (notPublic)
    return {
      ok: false,
      problem: `${notPublic.message}: ${PUBLIC_ONLY}`,
    };
  if (url.protocol !== 'https:' && !(operators && isLoopbackUrl(text)))
    return { ok: false, problem: 'The base URL must start with https://.' };
  if (url.username || url.password)
    return { ok: false, problem: 'Leave the user name and password out of the URL: the API key is sent on its own.' };
  if (url.search || url.hash) return { ok: false, problem: 'The base URL has no ?query or #fragment.' };
  return { ok: true, value: `${url.origin}${url.pathname.replace(/\/+$/, '')}` };
}

/**
 * Whether a URL is of the operator's own origin (MINT_API_BASE_URL's scheme, host and port, as URL.origin
 * normalises them): what a workspace's base URL may name that no address check applies to.
 */
export function isOperatorsOrigin(url: string, operatorBaseUrl: string): boolean {
  return URL.canParse(url) && URL.canParse(operatorBaseUrl) && new URL(url).origin === new URL(operatorBaseUrl).origin;
}

/** Whether a URL's host is this very host, as written: localhost, 127.x or ::1. */
export function isLoopbackUrl(url: string): boolean {
  const host = hostOf(new URL(url).hostname);
  if (host === 'localhost') return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  return host === '::1';
}
