import { createCipheriv, hkdfSync, randomBytes } from 'node:crypto';

/**
 * A workflow execution token as the app sealed it before SECRETS_KEYS sealed such tokens: AES-256-GCM under a
 * key derived (HKDF) from the bot token (or the signing secret), as `v1.<iv>.<data>.<tag>`. Written here, apart
 * from the app's code, so the tests prove that rows stored by that version still open.
 */
export function sealedInFirstFormat(keySource: string, plain: string): string {
  const key = Buffer.from(hkdfSync('sha256', keySource, 'mintlink', 'workflow execution token sealing', 32));
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const sealed = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return ['v1', iv.toString('base64url'), sealed.toString('base64url'), cipher.getAuthTag().toString('base64url')].join(
    '.',
  );
}
