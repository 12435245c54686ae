import { describe, expect, it } from 'vitest';
import { customerIdsInMessage, signSource, verifySource } from '../../../src/capabilities/deletions/message-source.js';

describe('customer IDs in a message', () => {
  it.each([
    ['code spans only, when there are any', 'delete `cus_1` and `cus_2` today', ['cus_1', 'cus_2']],
    ['a code block, split like the form', 'list:\n```\ncus_3, cus_4\ncus_5\n```', ['cus_3', 'cus_4', 'cus_5']],
    [
      'words with a digit or @ in prose',
      'Please remove cus_6 and 789, and bob@example.com.',
      ['cus_6', '789', 'bob@example.com'],
    ],
    [
      'no mention, channel or link',
      '<@U0BOB0001> <#C0X1|general> <https://a.example/cus_7|cus_7> <!here> cus_8',
      ['cus_8'],
    ],
    ['each ID once', '`cus_9` `cus_9`', ['cus_9']],
    ['sentence punctuation off', '(cus_10) cus_11: cus_12!', ['cus_10', 'cus_11', 'cus_12']],
    ['nothing from prose alone', 'Can someone delete the test accounts?', []],
  ])('reads %s', (_case, text, ids) => {
    expect(customerIdsInMessage(text)).toEqual(ids);
  });
});

describe('the signed message source', () => {
  const key = [Buffer.alloc(32, 7)] as const;
  it('verifies what it signed, in the workspace it signed it for, and nothing changed', () => {
    const signed = signSource(key, 'T0TEAM001', { channel: 'C0CHANNEL1', ts: '1763900000.123456' });
    expect(verifySource(key, 'T0TEAM001', signed)).toEqual({ channel: 'C0CHANNEL1', ts: '1763900000.123456' });
    expect(verifySource(key, 'T0TEAM001', signed.replace('C0CHANNEL1', 'C0CHANNEL2'))).toBeUndefined();
    expect(verifySource(key, 'T0TEAM002', signed)).toBeUndefined();
    expect(verifySource([Buffer.alloc(32, 8)], 'T0TEAM001', signed)).toBeUndefined();
    expect(verifySource(key, 'T0TEAM001', 42)).toBeUndefined();
  });

  it('verifies a source signed with an older key still listed (a form open while a key was added)', () => {
    const signed = signSource(key, 'T0TEAM001', { channel: 'C0CHANNEL1', ts: '1763900000.123456' });
    const rotated = [Buffer.alloc(32, 9), ...key] as const;
    expect(verifySource(rotated, 'T0TEAM001', signed)).toEqual({ channel: 'C0CHANNEL1', ts: '1763900000.123456' });
    expect(signSource(rotated, 'T0TEAM001', { channel: 'C0CHANNEL1', ts: '1763900000.123456' })).not.toBe(signed);
  });
});
