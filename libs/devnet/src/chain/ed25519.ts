import { createPrivateKey, createPublicKey, sign, verify, type KeyObject } from 'node:crypto';
import { StrKey, type Keypair, type Transaction, xdr } from '@stellar/stellar-sdk';

/**
 * ed25519 through node:crypto (OpenSSL) instead of the SDK's pure-JS implementation: verification is ~200× faster,
 * which matters when the chain checks every signature of a million-event history. Same algorithm (RFC 8032), so
 * results are identical.
 */
const SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');
const PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');
const publicKeys = new Map<string, KeyObject>();

function publicKeyObject(accountId: string): KeyObject {
  let key = publicKeys.get(accountId);
  if (!key) {
    key = createPublicKey({ key: Buffer.concat([SPKI_PREFIX, StrKey.decodeEd25519PublicKey(accountId)]), format: 'der', type: 'spki' });
    if (publicKeys.size > 100_000) publicKeys.clear();
    publicKeys.set(accountId, key);
  }
  return key;
}

export function verifyEd25519(accountId: string, data: Uint8Array, signature: Uint8Array): boolean {
  if (signature.length !== 64) return false;
  return verify(null, data, publicKeyObject(accountId), signature);
}

/** Signs like Keypair.sign, natively (used by the faucet and the seeder for their own transactions). */
const privateKeys = new Map<string, KeyObject>();

export function signEd25519(keypair: Keypair, data: Uint8Array): Buffer {
  const id = keypair.publicKey();
  let privateKey = privateKeys.get(id);
  if (!privateKey) {
    privateKey = createPrivateKey({ key: Buffer.concat([PKCS8_PREFIX, keypair.rawSecretKey()]), format: 'der', type: 'pkcs8' });
    if (privateKeys.size > 100_000) privateKeys.clear();
    privateKeys.set(id, privateKey);
  }
  return sign(null, data, privateKey);
}

/** Adds the keypair's signature to the transaction (like tx.sign, without the SDK's slow self-verification). */
export function signTransaction(tx: Transaction, keypair: Keypair): void {
  const signature = signEd25519(keypair, tx.hash());
  tx.signatures.push(
    xdr.DecoratedSignature.fromXdrObject({ hint: keypair.signatureHint(), signature } as Parameters<typeof xdr.DecoratedSignature.fromXdrObject>[0]),
  );
}
