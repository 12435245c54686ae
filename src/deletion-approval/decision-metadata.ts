import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';

/*
 * A decision modal (Approve… / Reject…) carries the id of the request it was opened for in its
 * private_metadata, which comes back from the client on submission. So that a changed id (an approver looking
 * at request D submitting a decision on request E) is refused, the metadata is signed: an HMAC-SHA-256 of the
 * decision, the request id and the approver, keyed with a key derived from the bot token. The bot token is
 * set in every mode and is the same on every replica, so any replica can check what another signed; the key
 * is derived (HKDF) so the token itself is never used as one.
 */

export type DecisionKind = 'approve' | 'reject';

const KEY_SALT = 'mintlink';
const KEY_INFO = 'mintlink deletion decision view metadata v1';

/** The signing key of decision views, derived from the bot token. */
export function decisionMetadataKey(botToken: string): Buffer {
  return Buffer.from(hkdfSync('sha256', botToken, KEY_SALT, KEY_INFO, 32));
}

function signature(key: Buffer, kind: DecisionKind, requestId: string, userId: string): Buffer {
  return createHmac('sha256', key)
    .update(JSON.stringify([kind, requestId, userId]))
    .digest();
}

/** The private_metadata of a decision view opened by `userId` on request `requestId`. */
export function signDecisionMetadata(key: Buffer, kind: DecisionKind, requestId: string, userId: string): string {
  return JSON.stringify({ requestId, sig: signature(key, kind, requestId, userId).toString('base64url') });
}

/**
 * The request id of a submitted decision view, when its metadata is exactly what the app signed for this
 * kind of decision and this user; otherwise undefined (changed, forged, or from another view).
 */
export function verifiedRequestId(
  key: Buffer,
  kind: DecisionKind,
  privateMetadata: string | undefined,
  userId: string,
): string | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(privateMetadata ?? '');
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null) return undefined;
  const { requestId, sig } = parsed as { requestId?: unknown; sig?: unknown };
  if (typeof requestId !== 'string' || typeof sig !== 'string') return undefined;
  const expected = signature(key, kind, requestId, userId);
  const given = Buffer.from(sig, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  return requestId;
}
