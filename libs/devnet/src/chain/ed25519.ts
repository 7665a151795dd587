import { createPrivateKey, sign, type KeyObject } from 'node:crypto';
import { type Keypair, type Transaction, xdr } from '@stellar/stellar-sdk';

/**
 * Native ed25519 signing (node:crypto) for the devnet's own transactions (faucet, seeder), without the SDK's slow
 * pure-JS path. Verification is @dob/signatures' verifyAccountSignature, the one loader of account public keys.
 */
const PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

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
