import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  decisionMetadataKey,
  signDecisionMetadata,
  verifiedRequestId,
} from '../../src/deletion-approval/decision-metadata.js';

const key = decisionMetadataKey('xoxb-test-token-1');

describe('decision view metadata', () => {
  it('verifies what it signed, for that decision and that approver only', () => {
    const metadata = signDecisionMetadata(key, 'approve', 'DR-AAAAAA', 'U0BOB');
    expect(verifiedRequestId(key, 'approve', metadata, 'U0BOB')).toBe('DR-AAAAAA');
    expect(verifiedRequestId(key, 'reject', metadata, 'U0BOB')).toBeUndefined();
    expect(verifiedRequestId(key, 'approve', metadata, 'U0CAROL')).toBeUndefined();
    expect(verifiedRequestId(decisionMetadataKey('xoxb-other-token'), 'approve', metadata, 'U0BOB')).toBeUndefined();
    // The same key from the same token: any replica verifies what another signed.
    expect(verifiedRequestId(decisionMetadataKey('xoxb-test-token-1'), 'approve', metadata, 'U0BOB')).toBe('DR-AAAAAA');
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

  it('does not use the bot token itself as the key, and keeps the metadata small', () => {
    expect(key.length).toBe(32);
    expect(key.equals(Buffer.from('xoxb-test-token-1').subarray(0, 32))).toBe(false);
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
