import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MintApiClient, mintConnectionPool } from '../../../src/platform/mint/mint-api-client.js';
import { MintApiError } from '../../../src/platform/mint/mint-api-error.js';
import type { HostResolver, ResolvedAddress } from '../../../src/platform/mint/public-address.js';
import { publicOnlyConnector } from '../../../src/platform/mint/public-connector.js';

/*
 * A workspace's own Mint URL, reached over real HTTPS: the connection goes to the address the connector
 * resolved and checked (the names here exist in no DNS, so a second lookup anywhere would fail), TLS checks the
 * certificate against the name, a name that leads to a private address by the time a connection is made is
 * refused, and a redirect is not followed. The server is on 127.0.0.1, taken as in development (the operator's
 * own service on this host) unless a test says otherwise.
 */

const NAME = 'mint.acme.example';
const cert = readFileSync(new URL('./tls/mint-acme-example.cert.pem', import.meta.url), 'utf8');
const key = readFileSync(new URL('./tls/mint-acme-example.key.pem', import.meta.url), 'utf8');

interface Seen {
  host: string | undefined;
  servername: string | false | null | undefined;
  path: string | undefined;
}
let server: Server;
let port: number;
const seen: Seen[] = [];
let connections = 0;
let answer: (req: IncomingMessage, res: ServerResponse) => void;

beforeAll(async () => {
  server = createServer({ cert, key }, (req, res) => {
    seen.push({ host: req.headers.host, servername: (req.socket as TLSSocket).servername, path: req.url });
    answer(req, res);
  });
  server.on('secureConnection', () => (connections += 1));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => new Promise<void>((resolve) => server.close(() => resolve())));

/** A resolver that answers from a table the test changes as it goes, and counts its lookups. */
function tableResolver(table: Record<string, string[]>): HostResolver & { lookups: string[] } {
  const lookups: string[] = [];
  const resolve = async (hostname: string): Promise<ResolvedAddress[]> => {
    lookups.push(hostname);
    const found = table[hostname];
    if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return found.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return Object.assign(resolve, { lookups });
}

const made: MintApiClient[] = [];
function client(baseUrl: string, resolve: HostResolver, allowLoopback = true): MintApiClient {
  const connections = mintConnectionPool(
    new URL(baseUrl).origin,
    publicOnlyConnector({ allowLoopback, resolve, tls: { ca: cert } }),
  );
  const created = new MintApiClient({
    baseUrl,
    apiKey: 'acme-key-0123456789',
    timeoutMs: 5_000,
    scrub: (text) => text,
    connections,
    retryBaseDelayMs: 10,
    refusedAddressAdvice: 'An admin can correct it.',
  });
  made.push(created);
  const close = created.close.bind(created);
  created.close = async () => {
    await close();
    await connections.close();
  };
  return created;
}

async function failure(promise: Promise<unknown>): Promise<MintApiError> {
  const error = await promise.then(
    () => new Error('expected a failure'),
    (caught: unknown) => caught,
  );
  if (!(error instanceof MintApiError)) throw error;
  return error;
}

beforeEach(() => {
  seen.length = 0;
  connections = 0;
  answer = (_req, res) => res.writeHead(201, { 'content-type': 'application/json' }).end('{"ok":true}');
});
afterEach(async () => {
  for (const c of made.splice(0)) await c.close();
});

describe('a workspace’s own Mint URL, over HTTPS', () => {
  it('connects to the address it checked, and TLS checks the certificate against the name', async () => {
    const resolve = tableResolver({ [NAME]: ['127.0.0.1'] });
    await client(`https://${NAME}:${port}/api`, resolve).createWallet();
    expect(seen).toEqual([{ host: `${NAME}:${port}`, servername: NAME, path: '/api/v1/wallet' }]);
    expect(resolve.lookups).toEqual([NAME]); // one lookup, its own: nothing else resolved the name

    // The same address under a name the certificate does not carry: refused by TLS, as for any service.
    const other = tableResolver({ 'other.acme.example': ['127.0.0.1'] });
    const error = await failure(client(`https://other.acme.example:${port}`, other).createWallet());
    expect(error.kind).toBe('network');
    expect(error.message).toContain('ERR_TLS_CERT_ALTNAME_INVALID');
    expect(seen).toHaveLength(1);
  });

  it('refuses a name that leads to a private address by the time it connects, sending nothing', async () => {
    const table: Record<string, string[]> = { [NAME]: ['127.0.0.1'] };
    const resolve = tableResolver(table);
    answer = (_req, res) =>
      res.writeHead(201, { 'content-type': 'application/json', connection: 'close' }).end('{"ok":true}');
    const c = client(`https://${NAME}:${port}`, resolve);
    await c.createLink({ nftId: 'nft-1', walletOptions: 'CUSTODIAL' });
    table[NAME] = ['10.0.0.5']; // the name's owner points it elsewhere (DNS rebinding)
    const error = await failure(c.createLink({ nftId: 'nft-2', walletOptions: 'CUSTODIAL' }));
    expect(error.kind).toBe('network');
    expect(error.message).toBe(
      `${NAME} resolves to 10.0.0.5, a private network address, and Mintlink sends a workspace’s key to public addresses only.`,
    );
    // Nothing was sent: not an outcome to check, nor an outage of the service.
    expect(error.details).toEqual({ addressRefused: true, advice: 'An admin can correct it.' });
    expect(seen).toHaveLength(1);
    expect(connections).toBe(1);
    expect(resolve.lookups).toEqual([NAME, NAME]); // one lookup per connection, never reused from elsewhere
  });

  it.each([
    ['this host, outside development', ['127.0.0.1'], 'an address of this very host (loopback)'],
    ['one private address among public ones', ['93.184.215.14', '192.168.1.7'], 'a private network address'],
    ['the NAT64 form of the metadata address', ['64:ff9b::a9fe:a9fe'], 'the NAT64 form of a link-local address'],
    ['an IPv4-mapped loopback', ['::ffff:127.0.0.1'], 'an IPv4 address written as IPv6'],
  ])('never connects when the name resolves to %s', async (_what, addresses, why) => {
    const resolve = tableResolver({ [NAME]: addresses });
    const error = await failure(client(`https://${NAME}:${port}`, resolve, false).createWallet());
    expect(error.details.addressRefused).toBe(true);
    expect(error.message).toContain(why);
    expect(connections).toBe(0);
  });

  it('refuses an address written in the URL itself, without a lookup', async () => {
    const resolve = tableResolver({});
    const error = await failure(client(`https://[::ffff:7f00:1]:${port}`, resolve, false).createWallet());
    expect(error.message).toContain('::ffff:7f00:1 is an IPv4 address written as IPv6');
    expect(resolve.lookups).toEqual([]);
    expect(connections).toBe(0);
  });

  it('does not follow a redirect: the answer is a failure, and nothing else is asked', async () => {
    answer = (_req, res) => res.writeHead(307, { location: 'http://169.254.169.254/latest/meta-data/' }).end();
    const resolve = tableResolver({ [NAME]: ['127.0.0.1'] });
    const error = await failure(client(`https://${NAME}:${port}`, resolve).createWallet());
    expect(error.kind).toBe('bad_response');
    expect(error.message).toBe('The Mint service answered 307 (a redirect, which Mintlink does not follow).');
    expect(seen).toHaveLength(1);
    expect(resolve.lookups).toEqual([NAME]);
  });
});
