import { createHash } from 'node:crypto';
import { Keypair, StrKey, Transaction, xdr } from '@stellar/stellar-sdk';
import { networkId } from '../host/contract-address';
import type { SorobanHost } from '../host/host.port';
import { verifyAccountSignature } from '@dob/signatures';
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
  /** The declared footprint (SorobanTransactionData.resources.footprint), enforced when the call is applied. */
  readonly footprint: { readonly readOnly: readonly xdr.LedgerKey[]; readonly readWrite: readonly xdr.LedgerKey[] };
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
 *
 * Fields are read from the decoded envelope directly and the hash is taken over the received bytes (the
 * envelope's Transaction XDR is a contiguous slice of it), which saves re-encoding large Soroban envelopes.
 */
export function validateTransaction(envelopeXdr: string, ctx: ValidationContext): Validation {
  let envelope: xdr.TransactionEnvelope;
  let raw: Buffer;
  try {
    raw = Buffer.from(envelopeXdr, 'base64');
    envelope = xdr.TransactionEnvelope.fromXdr(raw);
  } catch {
    return { ok: false, code: 'txMalformed' };
  }
  if (envelope.type === 'envelopeTypeTxFeeBump') return { ok: false, code: 'txNotSupported' };
  if (envelope.type !== 'envelopeTypeTx') return { ok: false, code: 'txMalformed' };

  const parsed = parseInvocation(envelope);
  if (!parsed.ok) return { ok: false, code: parsed.reason === 'missing' ? 'txMissingOperation' : 'txMalformed' };
  const body = envelope.v1.tx;

  const cond = preconditionsOf(body.cond);
  const minTime = cond.timeBounds?.minTime ?? 0n;
  const maxTime = cond.timeBounds?.maxTime ?? 0n;
  const bounds = checkBounds(minTime, maxTime, cond.ledgerBounds, ctx.ledger);
  if (bounds) return { ok: false, code: bounds };
  if (cond.unsupported) return { ok: false, code: 'txNotSupported' };

  // A Soroban operation must carry SorobanTransactionData (stellar-core: txMALFORMED otherwise).
  if (!parsed.sorobanData) return { ok: false, code: 'txMalformed' };
  const resourceFee = parsed.sorobanData.resourceFee;
  if (resourceFee < 0n) return { ok: false, code: 'txSorobanInvalid' };
  const fee = BigInt(body.fee);
  if (fee < BigInt(BASE_FEE) + resourceFee) return { ok: false, code: 'txInsufficientFee' };

  const source = accountIdOf(body.sourceAccount, () => new Transaction(envelope, ctx.networkPassphrase).source);
  const account = ctx.host.getAccount(source);
  if (!account) return { ok: false, code: 'txNoAccount' };
  const sequence = BigInt(body.seqNum);
  if (sequence !== account.sequence + 1n) return { ok: false, code: 'txBadSeq' };

  const operationSource = body.operations[0]!.sourceAccount;
  const signers = new Set([
    source,
    ...(operationSource ? [accountIdOf(operationSource, () => new Transaction(envelope, ctx.networkPassphrase).operations[0]!.source!)] : []),
  ]);
  const hash = transactionHash(raw, envelope.v1.signatures, ctx.networkPassphrase);
  const auth = ctx.signaturesVerified ? undefined : checkSignatures(hash, envelope.v1.signatures, signers);
  if (auth) return { ok: false, code: auth };

  const valid: ValidTransaction = {
    hash: hash.toString('hex'),
    envelopeXdr,
    source,
    sequence,
    fee,
    resourceFee,
    call: parsed.call,
    footprint: parsed.sorobanData.resources.footprint,
    minTime,
    maxTime,
    ...(cond.ledgerBounds ? { minLedger: cond.ledgerBounds.minLedger, maxLedger: cond.ledgerBounds.maxLedger } : {}),
  };
  if (account.balance < feeCharged(valid)) return { ok: false, code: 'txInsufficientBalance' };
  return { ok: true, tx: valid };
}

interface Preconditions {
  readonly timeBounds?: { readonly minTime: bigint; readonly maxTime: bigint };
  readonly ledgerBounds?: { readonly minLedger: number; readonly maxLedger: number };
  /** minSeqNum / minSeqAge / minSeqLedgerGap / extraSigners: not supported by the devnet. */
  readonly unsupported: boolean;
}

function preconditionsOf(cond: xdr.Preconditions): Preconditions {
  const c = cond as unknown as {
    type: string;
    timeBounds?: { minTime: bigint; maxTime: bigint };
    v2?: {
      timeBounds: { minTime: bigint; maxTime: bigint } | null;
      ledgerBounds: { minLedger: number; maxLedger: number } | null;
      minSeqNum: bigint | null;
      minSeqAge: bigint;
      minSeqLedgerGap: number;
      extraSigners: unknown[];
    };
  };
  if (c.type === 'precondTime' && c.timeBounds)
    return { timeBounds: { minTime: BigInt(c.timeBounds.minTime), maxTime: BigInt(c.timeBounds.maxTime) }, unsupported: false };
  if (c.type === 'precondV2' && c.v2) {
    const v2 = c.v2;
    return {
      ...(v2.timeBounds ? { timeBounds: { minTime: BigInt(v2.timeBounds.minTime), maxTime: BigInt(v2.timeBounds.maxTime) } } : {}),
      ...(v2.ledgerBounds ? { ledgerBounds: v2.ledgerBounds } : {}),
      unsupported:
        (v2.minSeqNum !== null && v2.minSeqNum !== undefined) || BigInt(v2.minSeqAge) !== 0n || v2.minSeqLedgerGap !== 0 || v2.extraSigners.length > 0,
    };
  }
  return { unsupported: false };
}

const accountIds = new Map<string, string>();
/** G… of a plain ed25519 (muxed) account, memoised; muxed M… ids go through the SDK. */
function accountIdOf(muxed: xdr.MuxedAccount, viaSdk: () => string): string {
  const m = muxed as unknown as { type: string; ed25519?: { value: Uint8Array } };
  if (m.type !== 'keyTypeEd25519' || !m.ed25519) return viaSdk();
  const raw = Buffer.from(m.ed25519.value);
  const id = raw.toString('latin1');
  let g = accountIds.get(id);
  if (!g) {
    g = StrKey.encodeEd25519PublicKey(raw);
    if (accountIds.size > 100_000) accountIds.clear();
    accountIds.set(id, g);
  }
  return g;
}

const networkIds = new Map<string, Buffer>();
/**
 * sha256(TransactionSignaturePayload{networkId, ENVELOPE_TYPE_TX, tx}): the received envelope is
 * [ENVELOPE_TYPE_TX][Transaction][DecoratedSignature<20>], so the payload is networkId ‖ the envelope without its
 * trailing signature array (each signature: 4-byte hint, length-prefixed padded bytes).
 */
function transactionHash(raw: Buffer, signatures: readonly xdr.DecoratedSignature[], passphrase: string): Buffer {
  let id = networkIds.get(passphrase);
  if (!id) {
    id = Buffer.from(networkId(passphrase));
    networkIds.set(passphrase, id);
  }
  let signaturesLength = 4;
  for (const s of signatures) signaturesLength += 8 + Math.ceil(s.signature.value.length / 4) * 4;
  return createHash('sha256')
    .update(id)
    .update(raw.subarray(0, raw.length - signaturesLength))
    .digest();
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

function checkBounds(
  minTime: bigint,
  maxTime: bigint,
  ledgerBounds: Preconditions['ledgerBounds'],
  ledger: ValidationContext['ledger'],
): TxErrorName | undefined {
  if (minTime > ledger.closeTime) return 'txTooEarly';
  if (maxTime !== 0n && maxTime < ledger.closeTime) return 'txTooLate';
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
function checkSignatures(hash: Buffer, signatures: readonly xdr.DecoratedSignature[], signers: ReadonlySet<string>): TxErrorName | undefined {
  const used = new Set<number>();
  for (const signer of signers) {
    const hint = signatureHintOf(signer);
    const index = signatures.findIndex(
      (sig, i) => !used.has(i) && Buffer.from(sig.hint.value).equals(hint) && verifyAccountSignature(signer, hash, sig.signature.value),
    );
    if (index < 0) return 'txBadAuth';
    used.add(index);
  }
  return used.size === signatures.length ? undefined : 'txBadAuthExtra';
}

const hints = new Map<string, Buffer>();
function signatureHintOf(accountId: string): Buffer {
  let hint = hints.get(accountId);
  if (!hint) {
    hint = Buffer.from(Keypair.fromPublicKey(accountId).signatureHint());
    if (hints.size > 100_000) hints.clear();
    hints.set(accountId, hint);
  }
  return hint;
}
