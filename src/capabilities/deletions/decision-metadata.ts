import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import type { SecretKey } from '../../platform/secrets/secret-box.js';

/*
 * A decision modal (Approve… / Reject…) carries the id of the request it was opened for in its
 * private_metadata, which comes back from the client on submission. So that a changed id (an approver looking
 * at request D submitting a decision on request E) is refused, the metadata is signed: an HMAC-SHA-256 of the
 * decision, the request id and the approver.
 *
 * The signing keys come from SECRETS_KEYS (one derived with HKDF from each, so no key is used for two
 * purposes), the same on every replica: the first signs, and a signature by any of them is accepted, so a view
 * opened before a new key was put first still decides after the restart. A view in Slack cannot be signed
 * again: a key dropped from the list makes the views it signed refused ("open it again"). Last comes the key
 * derived from Config.slack.keySource (the bot token, or the signing secret in distribution mode): the only
 * one when SECRETS_KEYS is unset (single-workspace mode), and the one views opened before it was set were
 * signed with.
 */

export type DecisionKind = 'approve' | 'reject';

/** The keys of decision views: the first signs, each verifies. */
export type DecisionKeys = readonly [Buffer, ...Buffer[]];

const KEY_SALT = 'mintlink';
const SECRETS_KEY_INFO = 'mintlink deletion decision view metadata v2';
const DERIVED_KEY_INFO = 'mintlink deletion decision view metadata v1';

/** The keys for decision views: one from each key of SECRETS_KEYS (newest first), then one from `keySource`. */
export function decisionMetadataKeys(secretKeys: readonly SecretKey[], keySource: string): DecisionKeys {
  const derived = Buffer.from(hkdfSync('sha256', keySource, KEY_SALT, DERIVED_KEY_INFO, 32));
  const fromSecrets = secretKeys.map((key) =>
    Buffer.from(hkdfSync('sha256', key.bytes, KEY_SALT, SECRETS_KEY_INFO, 32)),
  );
  const [first, ...rest] = [...fromSecrets, derived];
  return [first ?? derived, ...rest];
}

function signature(key: Buffer, kind: DecisionKind, requestId: string, userId: string): Buffer {
  return createHmac('sha256', key)
    .update(JSON.stringify([kind, requestId, userId]))
    .digest();
}

/** The private_metadata of a decision view opened by `userId` on request `requestId`, signed with the first key. */
export function signDecisionMetadata(
  keys: DecisionKeys,
  kind: DecisionKind,
  requestId: string,
  userId: string,
): string {
  return JSON.stringify({ requestId, sig: signature(keys[0], kind, requestId, userId).toString('base64url') });
}

/**
 * The request id of a submitted decision view, when its metadata is exactly what the app signed (with any of
 * its keys) for this kind of decision and this user; otherwise undefined (changed, forged, or from another view).
 */
export function verifiedRequestId(
  keys: DecisionKeys,
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
  const given = Buffer.from(sig, 'base64url');
  const signedByOne = keys.some((key) => {
    const expected = signature(key, kind, requestId, userId);
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
  return signedByOne ? requestId : undefined;
}
