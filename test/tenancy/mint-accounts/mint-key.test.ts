import { describe, expect, it } from 'vitest';
import {
  MAX_KEY_CHARS,
  checkMintBaseUrl,
  checkMintKey,
  lastFour,
} from '../../../src/tenancy/mint-accounts/mint-key.js';

describe('an API key pasted into the connect form', () => {
  it('takes a key, dropping the spaces and line break a copy brings along at its ends', () => {
    expect(checkMintKey('  sk_live_51Habc-DEF.ghi\n')).toEqual({ ok: true, value: 'sk_live_51Habc-DEF.ghi' });
    expect(lastFour('sk_live_51Habc-DEF.ghi')).toBe('.ghi');
  });

  it.each([
    [undefined, 'Enter the API key'],
    ['', 'Enter the API key'],
    ['   \n\t ', 'Enter the API key'],
    ['sk_live 51Habcdef', 'no spaces or line breaks'],
    ['sk_live\n51Habcdef', 'no spaces or line breaks'],
    ['a'.repeat(MAX_KEY_CHARS + 1), `is ${MAX_KEY_CHARS + 1} characters long`],
    ['abc123', 'too short'],
    ['clé-secrète-123', 'letters, digits and punctuation only'],
    ['your-api-key-here', 'placeholder'],
  ])('refuses %j, saying why without quoting it', (raw, problem) => {
    const checked = checkMintKey(raw);
    expect(checked.ok).toBe(false);
    const text = checked.ok ? '' : checked.problem;
    expect(text).toContain(problem);
    if (raw && raw.trim().length > 3) expect(text).not.toContain(raw.trim());
  });
});

describe('a workspace’s own base URL', () => {
  const OPERATOR = 'https://mint.example.com';
  it('takes https to a public address, without a trailing slash; this host only as the operator’s own origin', () => {
    expect(checkMintBaseUrl('https://eu.mint.example.com/api/', OPERATOR)).toEqual({
      ok: true,
      value: 'https://eu.mint.example.com/api',
    });
    expect(checkMintBaseUrl('  ', OPERATOR)).toEqual({ ok: true, value: undefined });
    // The operator's own service on this host (the mock, in development): this host is taken, http too.
    expect(checkMintBaseUrl('http://127.0.0.1:4010', 'http://127.0.0.1:4010')).toEqual({
      ok: true,
      value: 'http://127.0.0.1:4010',
    });
  });

  it.each([
    ['mint.example.com', 'Enter the base URL'],
    ['http://mint.example.com', 'must start with https://'],
    ['http://169.254.169.254', '169.254.169.254 is a link-local address'],
    ['https://127.0.0.1:9464', '127.0.0.1 is an address of this very host'],
    ['https://localhost', 'localhost is a name of this very host'],
    ['https://localhost.', 'localhost is a name of this very host'],
    ['https://foo.localhost.', 'foo.localhost is a name of this very host'],
    ['https://10.0.0.5', '10.0.0.5 is a private network address'],
    ['https://192.168.1.10', '192.168.1.10 is a private network address'],
    ['https://[::1]:5432', '::1 is an address of this very host'],
    ['https://[::7f00:1]', '::7f00:1 is an IPv4-compatible IPv6 address'],
    ['https://[64:ff9b::a9fe:a9fe]', 'the NAT64 form of a link-local address'],
    ['https://198.18.0.1', 'a benchmarking address'],
    ['https://224.0.0.1', 'a multicast address'],
    ['https://[fec0::1]', 'a site-local address'],
    ['https://[fd00::1]', 'a private network address (IPv6 unique local)'],
    ['https://metadata.google.internal', 'the name of a cloud metadata service'],
    ['ftp://mint.example.com', 'must start with https://'],
    ['https://user:pw@mint.example.com', 'user name and password'],
    ['https://mint.example.com/?key=1', 'no ?query'],
  ])('refuses %j', (raw, problem) => {
    const checked = checkMintBaseUrl(raw, OPERATOR);
    expect(checked.ok ? '' : checked.problem).toContain(problem);
  });

  it('on this host takes the operator’s own origin only: no other port or name of it, no private network', () => {
    const development = 'http://127.0.0.1:4010';
    expect(checkMintBaseUrl('http://127.0.0.1:4010/regional/', development)).toEqual({
      ok: true,
      value: 'http://127.0.0.1:4010/regional',
    });
    // Another port of this host may be a sidecar's admin API (Envoy's, Dapr's): never a workspace's to name.
    for (const raw of [
      'http://localhost:4011/',
      'http://127.0.0.1:15000',
      'https://127.0.0.1:4010',
      'http://localhost:4010',
      'http://10.0.0.5',
      'https://169.254.169.254',
      'https://[::ffff:7f00:1]',
    ])
      expect(checkMintBaseUrl(raw, development).ok, raw).toBe(false);
  });
});
