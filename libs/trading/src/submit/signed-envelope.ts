import { FeeBumpTransaction, TransactionBuilder, type Transaction } from '@stellar/stellar-sdk';
import { AppError } from '@dob/domain';
import { signatureHint, verifyAccountSignature } from '@dob/signatures';

export interface ParsedEnvelope {
  readonly tx: Transaction;
  /** Hex hash of the transaction for the network's passphrase (what a signature covers). */
  readonly hash: string;
}

/** Parses a signed envelope for one network; anything that is not a plain transaction envelope is a 400. */
export function parseSignedEnvelope(signedXdr: string, passphrase: string): ParsedEnvelope {
  let parsed: Transaction | FeeBumpTransaction;
  try {
    parsed = TransactionBuilder.fromXDR(signedXdr.trim(), passphrase);
  } catch {
    throw AppError.validation('signed_xdr is not a valid Stellar transaction envelope (base64 XDR)', {
      fields: { signed_xdr: 'invalid transaction envelope' },
    });
  }
  if (parsed instanceof FeeBumpTransaction) {
    throw AppError.validation('signed_xdr must be the prepared transaction, not a fee-bump envelope', {
      fields: { signed_xdr: 'fee-bump envelopes are not accepted' },
    });
  }
  return { tx: parsed, hash: Buffer.from(parsed.hash()).toString('hex') };
}

/**
 * True when one of the envelope's signatures is a valid ed25519 signature of `wallet` over the transaction hash.
 * The hash commits to the network passphrase, so an envelope signed for another network fails here. Checked with
 * node:crypto, never a JS verifier; the hint only preselects candidates.
 */
export function isSignedBy(tx: Transaction, wallet: string): boolean {
  const hint = signatureHint(wallet);
  const hash = Buffer.from(tx.hash());
  return tx.signatures.some((s) => Buffer.from(s.hint.value).equals(hint) && verifyAccountSignature(wallet, hash, Buffer.from(s.signature.value)));
}
