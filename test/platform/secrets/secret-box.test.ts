import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { parseSecretKey, SecretBox, SecretBoxError, type SecretKey } from '../../../src/platform/secrets/secret-box.js';

const key = (): SecretKey => {
  const parsed = parseSecretKey(randomBytes(32).toString('base64'));
  if (!parsed) throw new Error('no key');
  return parsed;
};

describe('SecretBox (AES-256-GCM)', () => {
  const older = key();
  const newer = key();

  it('seals with the first key; every listed key opens what it sealed', () => {
    const before = new SecretBox([older]);
    const sealed = before.seal('xoxb-secret-token', 'installation TT1 botToken');
    expect(sealed).not.toContain('xoxb');
    expect(sealed.startsWith(`v1.${older.id}.`)).toBe(true);
    const after = new SecretBox([newer, older]);
    expect(after.open(sealed, 'installation TT1 botToken')).toBe('xoxb-secret-token');
    expect(after.isStale(sealed)).toBe(true);
    const resealed = after.seal('xoxb-secret-token', 'installation TT1 botToken');
    expect(resealed.startsWith(`v1.${newer.id}.`)).toBe(true);
    expect(after.isStale(resealed)).toBe(false);
  });

  it('two seals of one value differ (a fresh IV each time)', () => {
    const box = new SecretBox([newer]);
    expect(box.seal('same', 'c')).not.toBe(box.seal('same', 'c'));
  });

  it('refuses a value moved to another row, altered, or sealed with a key no longer listed', () => {
    const box = new SecretBox([newer, older]);
    const sealed = box.seal('xoxb-of-workspace-A', 'installation TA botToken');
    expect(() => box.open(sealed, 'installation TB botToken')).toThrow(SecretBoxError);
    const altered = `${sealed.slice(0, -2)}${sealed.endsWith('A') ? 'B' : 'A'}A`;
    expect(() => box.open(altered, 'installation TA botToken')).toThrow(SecretBoxError);
    expect(() => new SecretBox([older]).open(sealed, 'installation TA botToken')).toThrow(/no longer lists/);
    try {
      box.open(sealed, 'installation TB botToken');
    } catch (error) {
      expect(String(error)).not.toContain('xoxb-of-workspace-A');
    }
  });

  it('reads keys as base64 or base64url of 32 bytes only', () => {
    const bytes = randomBytes(32);
    expect(parseSecretKey(bytes.toString('base64url'))?.bytes.equals(bytes)).toBe(true);
    expect(parseSecretKey(randomBytes(16).toString('base64'))).toBeUndefined();
    expect(parseSecretKey('not a key')).toBeUndefined();
  });
});
