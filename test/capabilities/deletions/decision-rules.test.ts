import { createHmac, hkdfSync, randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  decisionMetadataKeys,
  signDecisionMetadata,
  verifiedDecision,
  verifiedRequestId,
} from '../../../src/capabilities/deletions/decision-rules.js';
import { parseSecretKey, type SecretKey } from '../../../src/platform/secrets/secret-box.js';

const secretKey = (): SecretKey => parseSecretKey(randomBytes(32).toString('base64')) as SecretKey;
const [older, newer] = [secretKey(), secretKey()];
const key = decisionMetadataKeys([older], 'xoxb-test-token-1');

describe('decision view metadata', () => {
  it('verifies what it signed, for that decision and that approver only', () => {
    const metadata = signDecisionMetadata(key, 'approve', 'DR-AAAAAA', 'U0BOB');
    expect(verifiedRequestId(key, 'approve', metadata, 'U0BOB')).toBe('DR-AAAAAA');
    expect(verifiedRequestId(key, 'reject', metadata, 'U0BOB')).toBeUndefined();
    expect(verifiedRequestId(key, 'approve', metadata, 'U0CAROL')).toBeUndefined();
    const otherKeys = decisionMetadataKeys([secretKey()], 'xoxb-other-token');
    expect(verifiedRequestId(otherKeys, 'approve', metadata, 'U0BOB')).toBeUndefined();
    // The same keys on another replica (the same SECRETS_KEYS): it verifies what this one signed.
    expect(verifiedRequestId(decisionMetadataKeys([older], 'xoxb-test-token-1'), 'approve', metadata, 'U0BOB')).toBe(
      'DR-AAAAAA',
    );
  });

  it('binds the view it was pushed over (History’s Details): a changed or dropped one is refused', () => {
    const under = { id: 'V0DETAILS', hash: 'h1', callbackId: 'history_details', privateMetadata: 'hist_1' };
    const metadata = signDecisionMetadata(key, 'approve', 'DR-AAAAAA', 'U0BOB', under);
    expect(verifiedDecision(key, 'approve', metadata, 'U0BOB')).toEqual({ requestId: 'DR-AAAAAA', under });
    const parsed = JSON.parse(metadata) as { requestId: string; sig: string; under: typeof under };
    const changed = (u: unknown) => JSON.stringify({ ...parsed, under: u });
    // Another person's view to update, another result to show, or no view at all: nothing verifies.
    expect(verifiedDecision(key, 'approve', changed({ ...under, id: 'V0VICTIM1' }), 'U0BOB')).toBeUndefined();
    expect(verifiedDecision(key, 'approve', changed({ ...under, privateMetadata: 'hist_2' }), 'U0BOB')).toBeUndefined();
    expect(verifiedDecision(key, 'approve', changed(undefined), 'U0BOB')).toBeUndefined();
    expect(verifiedDecision(key, 'approve', changed('V0DETAILS'), 'U0BOB')).toBeUndefined();
    // A view opened over no other verifies without one, as before.
    const plain = signDecisionMetadata(key, 'approve', 'DR-AAAAAA', 'U0BOB');
    expect(verifiedDecision(key, 'approve', plain, 'U0BOB')).toEqual({ requestId: 'DR-AAAAAA' });
  });

  it('signs with SECRETS_KEYS, not with the bot token: a new bot token changes nothing', () => {
    const metadata = signDecisionMetadata(key, 'approve', 'DR-AAAAAA', 'U0BOB');
    expect(verifiedRequestId(decisionMetadataKeys([older], 'xoxb-new-token'), 'approve', metadata, 'U0BOB')).toBe(
      'DR-AAAAAA',
    );
    // Without SECRETS_KEYS (single-workspace mode may leave it unset) the key comes from the bot token alone.
    const fallback = decisionMetadataKeys([], 'xoxb-test-token-1');
    expect(fallback).toHaveLength(1);
    expect(verifiedRequestId(fallback, 'approve', metadata, 'U0BOB')).toBeUndefined();
  });

  it('after a new key is put first: views signed with the older key still verify, new ones are signed with the new', () => {
    const before = signDecisionMetadata(key, 'approve', 'DR-AAAAAA', 'U0BOB');
    const rotated = decisionMetadataKeys([newer, older], 'xoxb-test-token-1');
    expect(verifiedRequestId(rotated, 'approve', before, 'U0BOB')).toBe('DR-AAAAAA');
    const after = signDecisionMetadata(rotated, 'approve', 'DR-AAAAAA', 'U0BOB');
    expect(after).not.toBe(before);
    expect(verifiedRequestId(decisionMetadataKeys([newer], 'xoxb-test-token-1'), 'approve', after, 'U0BOB')).toBe(
      'DR-AAAAAA',
    );
    // The older key dropped from the list: what it signed is refused (a view in Slack cannot be signed again).
    expect(verifiedRequestId(decisionMetadataKeys([newer], 'xoxb-test-token-1'), 'approve', before, 'U0BOB')).toBe(
      undefined,
    );
  });

  it('verifies a view opened before the upgrade (signed with the key derived from the bot token)', () => {
    // As the app signed before decision keys came from SECRETS_KEYS: HKDF of the bot token, info v1.
    const firstKey = Buffer.from(
      hkdfSync('sha256', 'xoxb-test-token-1', 'mintlink', 'mintlink deletion decision view metadata v1', 32),
    );
    const sig = createHmac('sha256', firstKey)
      .update(JSON.stringify(['approve', 'DR-AAAAAA', 'U0BOB']))
      .digest('base64url');
    const metadata = JSON.stringify({ requestId: 'DR-AAAAAA', sig });
    expect(verifiedRequestId(key, 'approve', metadata, 'U0BOB')).toBe('DR-AAAAAA');
    expect(verifiedRequestId(decisionMetadataKeys([older], 'xoxb-other'), 'approve', metadata, 'U0BOB')).toBe(
      undefined,
    );
  });

  it('refuses another request id, unsigned metadata and garbage', () => {
    const { sig } = JSON.parse(signDecisionMetadata(key, 'approve', 'DR-AAAAAA', 'U0BOB')) as { sig: string };
    for (const forged of [
      JSON.stringify({ requestId: 'DR-BBBBBB', sig }),
      JSON.stringify({ requestId: 'DR-AAAAAA' }),
      JSON.stringify({ requestId: 'DR-AAAAAA', sig: '' }),
      JSON.stringify({ requestId: 'DR-AAAAAA', sig: `${sig}AA` }),
      JSON.stringify({ requestId: ['DR-AAAAAA'], sig }),
      'null',
      '"DR-AAAAAA"',
      '{',
      '',
      undefined,
    ]) {
      expect(verifiedRequestId(key, 'approve', forged, 'U0BOB')).toBeUndefined();
    }
  });

  it('uses neither a key of SECRETS_KEYS nor the bot token itself as a key, and keeps the metadata small', () => {
    expect(key.map((k) => k.length)).toEqual([32, 32]);
    expect(key[0].equals(older.bytes)).toBe(false);
    expect(key[1]?.equals(Buffer.from('xoxb-test-token-1').subarray(0, 32))).toBe(false);
    const metadata = signDecisionMetadata(key, 'reject', 'DR-AAAAAA', 'U0BOB');
    expect(metadata).not.toContain('xoxb');
    expect(metadata.length).toBeLessThan(100);
  });

  it('never verifies a changed id or signature (property-based)', () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1, maxLength: 30 }),
        fc.string({ minLength: 1, maxLength: 30 }),
        fc.string({ maxLength: 60 }),
        (id, otherId, otherSig) => {
          const metadata = signDecisionMetadata(key, 'approve', id, 'U1');
          expect(verifiedRequestId(key, 'approve', metadata, 'U1')).toBe(id);
          const { sig } = JSON.parse(metadata) as { sig: string };
          if (otherId !== id)
            expect(
              verifiedRequestId(key, 'approve', JSON.stringify({ requestId: otherId, sig }), 'U1'),
            ).toBeUndefined();
          if (Buffer.from(otherSig, 'base64url').toString('base64url') !== sig)
            expect(
              verifiedRequestId(key, 'approve', JSON.stringify({ requestId: id, sig: otherSig }), 'U1'),
            ).toBeUndefined();
        },
      ),
      { numRuns: 300 },
    );
  });
});
