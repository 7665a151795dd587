import { Keypair, Transaction, xdr } from '@stellar/stellar-sdk';
import type { SorobanHost } from '../host/host.port';
import { verifyEd25519 } from './ed25519';
import { BASE_FEE } from './ledger-header-xdr';
import { type ContractCall, parseInvocation } from './parse-invocation';
import type { TxErrorName } from './transaction-xdr';

/** A transaction that passed validation and can be applied at the next ledger close. */
export interface ValidTransaction {
  readonly hash: string;
  readonly envelopeXdr: string;
  readonly source: string;
  readonly sequence: bigint;
  /** Max fee the source offered (stroops). */
  readonly fee: bigint;
  /** Declared resource fee (SorobanTransactionData.resourceFee). */
  readonly resourceFee: bigint;
  readonly call: ContractCall;
  readonly minTime: bigint;
  readonly maxTime: bigint;
  readonly minLedger?: number;
  readonly maxLedger?: number;
}

export type Validation = { readonly ok: true; readonly tx: ValidTransaction } | { readonly ok: false; readonly code: TxErrorName };

export interface ValidationContext {
  readonly host: Pick<SorobanHost, 'getAccount'>;
  readonly networkPassphrase: string;
  /** The ledger the transaction would be applied in. */
  readonly ledger: { readonly sequence: number; readonly closeTime: bigint };
  /** Signatures were already verified at admission (re-checks at ledger close and log replay). */
  readonly signaturesVerified?: boolean;
}

/** What the chain charges an included transaction: the inclusion base fee plus its declared resource fee. */
export function feeCharged(tx: Pick<ValidTransaction, 'resourceFee'>): bigint {
  return BigInt(BASE_FEE) + tx.resourceFee;
}

/**
 * Validates a transaction the way stellar-core does before admitting it (TransactionFrame::checkValid), in its
 * order: shape → time/ledger bounds → soroban data → fee → source account → sequence → signatures → balance.
 * A rejected transaction changes nothing (its sequence number is not consumed).
 */
export function validateTransaction(envelopeXdr: string, ctx: ValidationContext): Validation {
  let envelope: xdr.TransactionEnvelope;
  try {
    envelope = xdr.TransactionEnvelope.fromXdr(envelopeXdr, 'base64');
  } catch {
    return { ok: false, code: 'txMalformed' };
  }
  if (envelope.type === 'envelopeTypeTxFeeBump') return { ok: false, code: 'txNotSupported' };
  if (envelope.type !== 'envelopeTypeTx') return { ok: false, code: 'txMalformed' };

  const parsed = parseInvocation(envelope);
  if (!parsed.ok) return { ok: false, code: parsed.reason === 'missing' ? 'txMissingOperation' : 'txMalformed' };
  const tx = new Transaction(envelope, ctx.networkPassphrase);

  const minTime = BigInt(tx.timeBounds?.minTime ?? '0');
  const maxTime = BigInt(tx.timeBounds?.maxTime ?? '0');
  const bounds = checkBounds(tx, minTime, maxTime, ctx.ledger);
  if (bounds) return { ok: false, code: bounds };
  if (tx.minAccountSequence !== undefined || tx.minAccountSequenceAge !== undefined || tx.minAccountSequenceLedgerGap !== undefined || (tx.extraSigners?.length ?? 0) > 0) {
    return { ok: false, code: 'txNotSupported' };
  }

  // A Soroban operation must carry SorobanTransactionData (stellar-core: txMALFORMED otherwise).
  if (!parsed.sorobanData) return { ok: false, code: 'txMalformed' };
  const resourceFee = parsed.sorobanData.resourceFee;
  if (resourceFee < 0n) return { ok: false, code: 'txSorobanInvalid' };
  const fee = BigInt(tx.fee);
  if (fee < BigInt(BASE_FEE) + resourceFee) return { ok: false, code: 'txInsufficientFee' };

  const account = ctx.host.getAccount(tx.source);
  if (!account) return { ok: false, code: 'txNoAccount' };
  const sequence = BigInt(tx.sequence);
  if (sequence !== account.sequence + 1n) return { ok: false, code: 'txBadSeq' };

  const operationSource = tx.operations[0].source;
  const signers = new Set([tx.source, ...(operationSource ? [operationSource] : [])]);
  const auth = ctx.signaturesVerified ? undefined : checkSignatures(tx, signers);
  if (auth) return { ok: false, code: auth };

  const valid: ValidTransaction = {
    hash: Buffer.from(tx.hash()).toString('hex'),
    envelopeXdr,
    source: tx.source,
    sequence,
    fee,
    resourceFee,
    call: parsed.call,
    minTime,
    maxTime,
    ...(tx.ledgerBounds ? { minLedger: tx.ledgerBounds.minLedger, maxLedger: tx.ledgerBounds.maxLedger } : {}),
  };
  if (account.balance < feeCharged(valid)) return { ok: false, code: 'txInsufficientBalance' };
  return { ok: true, tx: valid };
}

/**
 * The apply-time re-check of an admitted transaction (stellar-core re-validates the tx set at close): whatever can
 * have changed since admission — the clock, the source's sequence and balance. Signatures and shape cannot.
 */
export function recheckAtApply(tx: ValidTransaction, ctx: ValidationContext): TxErrorName | undefined {
  if (tx.minTime > ctx.ledger.closeTime) return 'txTooEarly';
  if (tx.maxTime !== 0n && tx.maxTime < ctx.ledger.closeTime) return 'txTooLate';
  if ((tx.minLedger ?? 0) > ctx.ledger.sequence) return 'txTooEarly';
  if (tx.maxLedger && tx.maxLedger <= ctx.ledger.sequence) return 'txTooLate';
  const account = ctx.host.getAccount(tx.source);
  if (!account) return 'txNoAccount';
  if (tx.sequence !== account.sequence + 1n) return 'txBadSeq';
  if (account.balance < feeCharged(tx)) return 'txInsufficientBalance';
  return undefined;
}

function checkBounds(tx: Transaction, minTime: bigint, maxTime: bigint, ledger: ValidationContext['ledger']): TxErrorName | undefined {
  if (minTime > ledger.closeTime) return 'txTooEarly';
  if (maxTime !== 0n && maxTime < ledger.closeTime) return 'txTooLate';
  const ledgerBounds = tx.ledgerBounds;
  if (ledgerBounds) {
    if (ledgerBounds.minLedger > ledger.sequence) return 'txTooEarly';
    if (ledgerBounds.maxLedger !== 0 && ledgerBounds.maxLedger <= ledger.sequence) return 'txTooLate';
  }
  return undefined;
}

/**
 * Master-key ed25519 signatures only (devnet accounts have no extra signers): every required signer needs a valid
 * signature over the tx hash for THIS network (txBadAuth), and no signature may be left unused (txBadAuthExtra).
 */
function checkSignatures(tx: Transaction, signers: ReadonlySet<string>): TxErrorName | undefined {
  const hash = tx.hash();
  const used = new Set<number>();
  for (const signer of signers) {
    const keypair = Keypair.fromPublicKey(signer);
    const hint = keypair.signatureHint();
    const index = tx.signatures.findIndex(
      (sig, i) => !used.has(i) && Buffer.from(sig.hint.value).equals(Buffer.from(hint)) && verifyEd25519(signer, hash, sig.signature.value),
    );
    if (index < 0) return 'txBadAuth';
    used.add(index);
  }
  return used.size === tx.signatures.length ? undefined : 'txBadAuthExtra';
}
