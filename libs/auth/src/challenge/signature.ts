import { createHash } from 'node:crypto';
import { StrKey } from '@stellar/stellar-sdk';
import { verifyAccountSignature } from '@dob/signatures';

export type SignatureScheme = 'ed25519-raw' | 'sep53';

/** SEP-53 (stellar-protocol ecosystem/sep-0053.md): ed25519 over SHA-256("Stellar Signed Message:\n" + message). */
const SEP53_PREFIX = Buffer.from('Stellar Signed Message:\n', 'utf8');

export function isStellarAccountId(wallet: unknown): wallet is string {
  return typeof wallet === 'string' && StrKey.isValidEd25519PublicKey(wallet);
}

export function sep53Digest(message: string): Buffer {
  return createHash('sha256').update(SEP53_PREFIX).update(message, 'utf8').digest();
}

/**
 * Verifies a hex ed25519 signature of `message` by `wallet` with Node's native crypto (OpenSSL), accepting the two
 * schemes of docs/decisions.md#d6: raw (`keypair.sign(Buffer.from(message))`, what Dob documents) and SEP-53
 * (`keypair.signMessage(message)`). Returns the scheme that matched, or null (malformed input included).
 */
export function verifyWalletSignature(wallet: string, message: string, signatureHex: string): SignatureScheme | null {
  if (!isStellarAccountId(wallet) || !/^[0-9a-fA-F]{128}$/.test(signatureHex)) return null;
  const signature = Buffer.from(signatureHex, 'hex');
  if (verifyAccountSignature(wallet, Buffer.from(message, 'utf8'), signature)) return 'ed25519-raw';
  if (verifyAccountSignature(wallet, sep53Digest(message), signature)) return 'sep53';
  return null;
}
