import { createDecipheriv, hkdfSync } from 'node:crypto';
import { SecretBox, type SecretKey, secretKeyId } from '../../secrets/secret-box.js';

/*
 * A workflow execution's token (xwfp-...) is kept while its deletion request waits for a decision, so that
 * whichever replica sees the decision can complete the step. It is a secret: in the database it is sealed with
 * SecretBox under SECRETS_KEYS, as the other stored secrets are (the first key seals, every listed key opens,
 * `npm run secrets -- reseal` seals again with the first), and bound to its request: a sealed token copied into
 * another request's row does not open there.
 *
 * SECRETS_KEYS may be unset in single-workspace mode: then the key is derived (HKDF) from what the app's
 * signing keys come from (the bot token there; see Config.slack.keySource). That derived key stays listed
 * last, to open what was sealed with it before SECRETS_KEYS was set, and so do tokens sealed in the first
 * format (`v1.<iv>.<data>.<tag>`, with the same derived key and no key id) until `secrets reseal` seals them
 * again: no step waiting across an upgrade is lost.
 */

/** What a step's token is bound to: its deletion request. */
export function stepTokenContext(requestId: string): string {
  return `workflow step token ${requestId}`;
}

/** The key derived from `keySource` (the bot token, or the signing secret in distribution mode). */
export function derivedStepTokenKey(keySource: string): SecretKey {
  const bytes = Buffer.from(hkdfSync('sha256', keySource, 'mintlink', 'workflow execution token sealing', 32));
  return { id: secretKeyId(bytes), bytes };
}

/** Sealing and opening of workflow execution tokens (see above). */
export class StepTokenSeal {
  private readonly box: SecretBox;

  constructor(
    secretKeys: readonly SecretKey[],
    private readonly derived: SecretKey,
  ) {
    this.box = new SecretBox([...secretKeys, derived]);
  }

  /** The id of the key new tokens are sealed with. */
  get currentKeyId(): string {
    return this.box.currentKeyId;
  }

  seal(token: string, requestId: string): string {
    return this.box.seal(token, stepTokenContext(requestId));
  }

  /** The token, or undefined when it cannot be opened (its key no longer listed, another request's, altered). */
  open(sealed: string, requestId: string): string | undefined {
    if (isFirstFormat(sealed)) return openFirstFormat(this.derived.bytes, sealed);
    try {
      return this.box.open(sealed, stepTokenContext(requestId));
    } catch {
      return undefined;
    }
  }

  /** True when `sealed` is not sealed with the current key (or in the first format): `secrets reseal` does it. */
  isStale(sealed: string): boolean {
    return isFirstFormat(sealed) || this.box.isStale(sealed);
  }
}

/** The app's StepTokenSeal: SECRETS_KEYS, and the key derived from `keySource` last. */
export function stepTokenSeal(secretKeys: readonly SecretKey[], keySource: string): StepTokenSeal {
  return new StepTokenSeal(secretKeys, derivedStepTokenKey(keySource));
}

/** The first format has four parts; SecretBox's has three (`v1.<key id>.<sealed>`). */
function isFirstFormat(sealed: string): boolean {
  return sealed.split('.').length === 4;
}

function openFirstFormat(key: Buffer, sealed: string): string | undefined {
  const [version, iv, data, tag] = sealed.split('.');
  if (version !== 'v1' || !iv || !data || !tag) return undefined;
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
  } catch {
    return undefined;
  }
}
