import { describe, expect, it } from 'vitest';
import { sealToken, tokenSealingKey, unsealToken } from '../../src/workflow-steps/sealed-token.js';

describe('sealed workflow execution tokens', () => {
  const key = tokenSealingKey('xoxb-bot-token-one');
  const token = 'xwfp-1-0123456789abcdef';

  it('opens with the key of the same bot token only, and never shows the token', () => {
    const sealed = sealToken(key, token);
    expect(sealed).not.toContain(token);
    expect(sealed).not.toContain('xwfp');
    expect(unsealToken(key, sealed)).toBe(token);
    expect(unsealToken(tokenSealingKey('xoxb-bot-token-two'), sealed)).toBeUndefined();
  });

  it('seals the same token differently each time, and refuses an altered or foreign value', () => {
    const sealed = sealToken(key, token);
    expect(sealToken(key, token)).not.toBe(sealed);
    const [version, iv, data, tag] = sealed.split('.');
    const flipped = `${data?.[0] === 'A' ? 'B' : 'A'}${data?.slice(1)}`;
    expect(unsealToken(key, [version, iv, flipped, tag].join('.'))).toBeUndefined();
    expect(unsealToken(key, '')).toBeUndefined();
    expect(unsealToken(key, 'v2.a.b.c')).toBeUndefined();
  });
});
