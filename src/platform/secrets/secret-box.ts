import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/** Marks a sealed value: the format's version, then the key's id, then the IV, tag and ciphertext. */
const FORMAT = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;

export class SecretBoxError extends Error {}

/** One key of SECRETS_KEYS: 32 bytes, and the short id a sealed value names it by. */
export interface SecretKey {
  id: string;
  bytes: Buffer;
}

/** A key's id: the first 8 hex digits of its SHA-256 (names the key, reveals nothing usable about it). */
export function secretKeyId(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex').slice(0, 8);
}

/** Reads one key as SECRETS_KEYS gives it: base64 (or base64url) of exactly 32 random bytes. */
export function parseSecretKey(text: string): SecretKey | undefined {
  if (!/^[A-Za-z0-9+/_-]{43}=?$/.test(text)) return undefined;
  const bytes = Buffer.from(text.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
  return bytes.length === 32 ? { id: secretKeyId(bytes), bytes } : undefined;
}

/**
 * Secrets kept in the database (bot and refresh tokens, Mint API keys), sealed with AES-256-GCM. The first key
 * seals; every key opens what it sealed (a value names its key's id), so a new key is put first and the old
 * ones stay listed until `npm run secrets -- reseal` has sealed everything again with the new one.
 *
 * `context` is bound to the sealed value as associated data (say `installation T0123:bot_token`): a value
 * copied into another row or column, another workspace's, does not open there.
 */
export class SecretBox {
  private readonly keys: readonly SecretKey[];

  constructor(keys: readonly SecretKey[]) {
    const first = keys[0];
    if (!first) throw new SecretBoxError('no encryption key');
    this.keys = keys;
  }

  /** The id of the key new values are sealed with. */
  get currentKeyId(): string {
    // eslint-disable-next-line @typescript-eslint/consistent-type-assertions -- the constructor refuses an empty list of keys
    return (this.keys[0] as SecretKey).id;
  }

  seal(plain: string, context: string): string {
    // eslint-disable-next-line @typescript-eslint/consistent-type-assertions -- the constructor refuses an empty list of keys
    const key = this.keys[0] as SecretKey;
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', key.bytes, iv);
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    const packed = Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
    return `${FORMAT}.${key.id}.${packed}`;
  }

  /** Opens a sealed value; throws SecretBoxError (never with the value) when it cannot. */
  open(sealed: string, context: string): string {
    const [format, keyId, packed] = sealed.split('.');
    if (format !== FORMAT || !keyId || packed === undefined) throw new SecretBoxError('not a sealed value');
    const key = this.keys.find((k) => k.id === keyId);
    if (!key) throw new SecretBoxError(`sealed with key ${keyId}, which SECRETS_KEYS no longer lists`);
    const bytes = Buffer.from(packed, 'base64url');
    if (bytes.length < IV_BYTES + TAG_BYTES) throw new SecretBoxError('sealed value too short');
    try {
      const decipher = createDecipheriv('aes-256-gcm', key.bytes, bytes.subarray(0, IV_BYTES));
      decipher.setAAD(Buffer.from(context, 'utf8'));
      decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
      return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
    } catch {
      throw new SecretBoxError(`sealed value does not open with key ${keyId} (altered, or moved from another row)`);
    }
  }

  /** True when `sealed` was sealed with an older key than the current one. */
  isStale(sealed: string): boolean {
    return sealed.split('.')[1] !== this.currentKeyId;
  }
}
