import { describe, expect, it } from 'vitest';
import { MAX_KEY_CHARS, checkMintBaseUrl, checkMintKey, lastFour } from '../../src/mint-accounts/mint-key.js';

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
  it('takes https to a public address, without a trailing slash; this host only in development', () => {
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
    ['http://169.254.169.254', 'not this host or a private network'],
    ['https://127.0.0.1:9464', 'not this host or a private network'],
    ['https://localhost', 'not this host or a private network'],
    ['https://10.0.0.5', 'not this host or a private network'],
    ['https://192.168.1.10', 'not this host or a private network'],
    ['https://[::1]:5432', 'not this host or a private network'],
    ['https://[fd00::1]', 'not this host or a private network'],
    ['ftp://mint.example.com', 'must start with https://'],
    ['https://user:pw@mint.example.com', 'user name and password'],
    ['https://mint.example.com/?key=1', 'no ?query'],
  ])('refuses %j', (raw, problem) => {
    const checked = checkMintBaseUrl(raw, OPERATOR);
    expect(checked.ok ? '' : checked.problem).toContain(problem);
  });
});
