import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { readOrCreateSecretFile } from '@dob/runtime';

/**
 * Webhook secrets at rest: AES-256-GCM (node crypto) with a 96-bit random IV per secret and the webhook id as
 * additional authenticated data, so a ciphertext copied onto another webhook's row does not decrypt.
 * Stored as `v1.<iv b64url>.<tag b64url>.<ciphertext b64url>`.
 */
export interface SecretBox {
  seal(plaintext: string, context: string): string;
  open(sealed: string, context: string): string;
}

export function createSecretBox(key: Buffer): SecretBox {
  if (key.length !== 32) throw new Error('webhook secret key must be 32 bytes (AES-256)');
  return {
    seal(plaintext, context) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      cipher.setAAD(Buffer.from(context, 'utf8'));
      const ct = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return ['v1', iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), ct.toString('base64url')].join('.');
    },
    open(sealed, context) {
      const [v, iv, tag, ct] = sealed.split('.');
      if (v !== 'v1' || !iv || !tag || ct === undefined) throw new Error('unrecognised sealed secret');
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
      decipher.setAAD(Buffer.from(context, 'utf8'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(ct, 'base64url')), decipher.final()]).toString('utf8');
    },
  };
}

/** A configured key: 32 bytes as 64 hex chars or base64. */
export function parseSecretKey(text: string): Buffer {
  const t = text.trim();
  const key = /^[0-9a-f]{64}$/i.test(t) ? Buffer.from(t, 'hex') : Buffer.from(t, 'base64');
  if (key.length !== 32) throw new Error('WEBHOOK_SECRET_KEY must be 32 bytes (64 hex chars or base64)');
  return key;
}

/**
 * The embedded default: `<DATA_DIR>/webhook-secret.key`, created once with mode 0600 (exclusive create, so two
 * processes starting together agree on one key).
 */
export function loadOrCreateKeyFile(path: string): Buffer {
  return parseSecretKey(readOrCreateSecretFile(path).toString('hex'));
}
