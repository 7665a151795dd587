import { createPublicKey, verify, type KeyObject } from 'node:crypto';
import { StrKey } from '@stellar/stellar-sdk';

// RFC 8410 SubjectPublicKeyInfo prefix for a raw 32-byte Ed25519 key (OID 1.3.101.112).
const ED25519_SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');
const cache = new Map<string, KeyObject>();

function publicKeyOf(account: string): KeyObject {
  let key = cache.get(account);
  if (!key) {
    const raw = StrKey.decodeEd25519PublicKey(account);
    key = createPublicKey({ key: Buffer.concat([ED25519_SPKI_PREFIX, raw]), format: 'der', type: 'spki' });
    if (cache.size > 10_000) cache.clear();
    cache.set(account, key);
  }
  return key;
}

/** Ed25519 verification of `signature` over `message` by a G… account, with Node's native crypto (OpenSSL). */
export function verifyAccountSignature(account: string, message: Buffer, signature: Buffer): boolean {
  if (signature.length !== 64) return false;
  try {
    return verify(null, message, publicKeyOf(account), signature);
  } catch {
    return false;
  }
}

/** The 4-byte signature hint Stellar puts beside a decorated signature: the last 4 bytes of the public key. */
export function signatureHint(account: string): Buffer {
  return Buffer.from(StrKey.decodeEd25519PublicKey(account).subarray(28));
}
