import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { parseSecretKey, type SecretKey } from '../../../../src/platform/secrets/secret-box.js';
import { stepTokenSeal } from '../../../../src/platform/slack/workflow-steps/sealed-token.js';
import { sealedInFirstFormat } from '../../../kit/sealed-step-token.js';

const secretKey = (): SecretKey => parseSecretKey(randomBytes(32).toString('base64')) as SecretKey;
const token = 'xwfp-1-0123456789abcdef';

describe('sealed workflow execution tokens', () => {
  const [older, newer] = [secretKey(), secretKey()];

  it('are sealed with the first key of SECRETS_KEYS, bound to their request, and never show the token', () => {
    const seal = stepTokenSeal([older], 'xoxb-bot-token-one');
    const sealed = seal.seal(token, 'DR-AAAAAA');
    expect(sealed).not.toContain('xwfp');
    expect(sealed.split('.')[1]).toBe(older.id);
    expect(seal.open(sealed, 'DR-AAAAAA')).toBe(token);
    expect(seal.open(sealed, 'DR-BBBBBB')).toBeUndefined(); // copied into another request's row
    // Another bot token (a reinstall, a new token) opens it all the same: the key is SECRETS_KEYS'.
    expect(stepTokenSeal([older], 'xoxb-bot-token-two').open(sealed, 'DR-AAAAAA')).toBe(token);
    expect(stepTokenSeal([secretKey()], 'xoxb-bot-token-one').open(sealed, 'DR-AAAAAA')).toBeUndefined();
  });

  it('after a new key is put first: older tokens still open and are stale; new ones are sealed with it', () => {
    const before = stepTokenSeal([older], 'xoxb-bot').seal(token, 'DR-AAAAAA');
    const rotated = stepTokenSeal([newer, older], 'xoxb-bot');
    expect(rotated.open(before, 'DR-AAAAAA')).toBe(token);
    expect(rotated.isStale(before)).toBe(true);
    const after = rotated.seal(token, 'DR-AAAAAA');
    expect(rotated.isStale(after)).toBe(false);
    expect(stepTokenSeal([newer], 'xoxb-bot').open(after, 'DR-AAAAAA')).toBe(token);
  });

  it('without SECRETS_KEYS: sealed with a key derived from the bot token, which still opens them once it is set', () => {
    const fallback = stepTokenSeal([], 'xoxb-bot-token-one');
    const sealed = fallback.seal(token, 'DR-AAAAAA');
    expect(fallback.open(sealed, 'DR-AAAAAA')).toBe(token);
    expect(stepTokenSeal([], 'xoxb-bot-token-two').open(sealed, 'DR-AAAAAA')).toBeUndefined();
    const withKeys = stepTokenSeal([newer], 'xoxb-bot-token-one');
    expect(withKeys.open(sealed, 'DR-AAAAAA')).toBe(token);
    expect(withKeys.isStale(sealed)).toBe(true);
  });

  it('opens tokens sealed in the first format (before the upgrade), which are stale', () => {
    const first = sealedInFirstFormat('xoxb-bot-token-one', token);
    const seal = stepTokenSeal([newer], 'xoxb-bot-token-one');
    expect(seal.open(first, 'DR-AAAAAA')).toBe(token);
    expect(seal.isStale(first)).toBe(true);
    expect(stepTokenSeal([newer], 'xoxb-bot-token-two').open(first, 'DR-AAAAAA')).toBeUndefined();
  });

  it('seals the same token differently each time, and refuses an altered or foreign value', () => {
    const seal = stepTokenSeal([older], 'xoxb-bot');
    const sealed = seal.seal(token, 'DR-AAAAAA');
    expect(seal.seal(token, 'DR-AAAAAA')).not.toBe(sealed);
    const [format, keyId, packed] = sealed.split('.');
    const flipped = `${packed?.[20] === 'A' ? 'B' : 'A'}`;
    expect(
      seal.open([format, keyId, `${packed?.slice(0, 20)}${flipped}${packed?.slice(21)}`].join('.'), 'DR-AAAAAA'),
    ).toBe(undefined);
    const first = sealedInFirstFormat('xoxb-bot', token);
    const [version, iv, data, tag] = first.split('.');
    expect(
      seal.open([version, iv, `${data?.[0] === 'A' ? 'B' : 'A'}${data?.slice(1)}`, tag].join('.'), 'DR-AAAAAA'),
    ).toBe(undefined);
    expect(seal.open('', 'DR-AAAAAA')).toBeUndefined();
    expect(seal.open('v2.a.b.c', 'DR-AAAAAA')).toBeUndefined();
    expect(seal.open('v2.a.b', 'DR-AAAAAA')).toBeUndefined();
  });
});
