import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

/*
 * A workflow execution's token (xwfp-...) is kept while its deletion request waits for a decision, so that
 * whichever replica sees the decision can complete the step. It is a secret: in the database it is sealed
 * (AES-256-GCM) with a key derived from the bot token, which every replica has and the database does not.
 */

const VERSION = 'v1';

/** The sealing key: the same on every replica of one app, different for every app. */
export function tokenSealingKey(botToken: string): Buffer {
  return Buffer.from(hkdfSync('sha256', botToken, 'mintlink', 'workflow execution token sealing', 32));
}

export function sealToken(key: Buffer, token: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const sealed = Buffer.concat([cipher.update(token, 'utf8'), cipher.final()]);
  return [
    VERSION,
    iv.toString('base64url'),
    sealed.toString('base64url'),
    cipher.getAuthTag().toString('base64url'),
  ].join('.');
}

/** The token, or undefined when it cannot be opened (sealed under another bot token, or altered). */
export function unsealToken(key: Buffer, sealed: string): string | undefined {
  const [version, iv, data, tag] = sealed.split('.');
  if (version !== VERSION || !iv || !data || !tag) return undefined;
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
  } catch {
    return undefined;
  }
}
