import { createHash } from 'node:crypto';
import { type Keypair, xdr } from '@stellar/stellar-sdk';
import { signEd25519 } from '../chain/ed25519';
import { networkId } from '../host/contract-address';
import { writeAddress, writeScVal, XdrOut } from '../host/fast-xdr';
import { scAddressOf } from '../host/ledger-entries';

/**
 * A signed single-call Soroban transaction envelope written straight to XDR (Stellar-transaction.x), for the
 * seeder's bulk path: the same bytes stellar-sdk's TransactionBuilder + assembleTransaction + sign produce for a
 * call whose only authorization is its source account (direct-envelope.spec.ts compares them), without building
 * the SDK's object graph three times per transaction.
 *
 * Layout: TransactionEnvelope{ENVELOPE_TYPE_TX, Transaction{source, fee, seqNum, PRECOND_TIME{0,0}, MEMO_NONE,
 * [Operation{no source, INVOKE_HOST_FUNCTION{INVOKE_CONTRACT{contract, fn, args}, auth}}], ext v1 sorobanData},
 * [DecoratedSignature{hint, sig}]}; the signature is over sha256(networkId ‖ ENVELOPE_TYPE_TX ‖ Transaction).
 */
export interface DirectCall {
  readonly signer: Keypair;
  readonly sequence: bigint;
  /** Total fee offered (inclusion fee + resource fee), stroops. */
  readonly fee: bigint;
  readonly contractId: string;
  readonly fn: string;
  readonly args: readonly xdr.ScVal[];
  /** true: one auth entry, source-account credentials, root invocation = this call, no sub-invocations. */
  readonly sourceAuth: boolean;
  /** SorobanTransactionData XDR (footprint, resources, resource fee). */
  readonly sorobanData: Buffer;
}

const ENVELOPE_TYPE_TX = 2;
const PRECOND_TIME = 1;
const OP_INVOKE_HOST_FUNCTION = 24;
const networkIds = new Map<string, Buffer>();
const out = new XdrOut();

function invokeContractArgs(call: DirectCall) {
  if (!writeAddress(out, scAddressOf(call.contractId))) throw new Error(`cannot encode contract ${call.contractId}`);
  out.opaque(Buffer.from(call.fn, 'utf8'));
  out.u32(call.args.length);
  for (const arg of call.args) {
    const at = out.len;
    if (writeScVal(out, arg)) continue;
    out.len = at;
    out.fixed(Buffer.from(arg.toXdr()));
  }
}

export function directEnvelope(call: DirectCall, passphrase: string): { readonly envelopeXdr: string; readonly hash: string } {
  const rawKey = call.signer.rawPublicKey();
  out.len = 0;
  out.i32(ENVELOPE_TYPE_TX);
  out.i32(0); // KEY_TYPE_ED25519
  out.fixed(rawKey);
  if (call.fee > 0xffff_ffffn) throw new Error('fee does not fit a uint32');
  out.u32(Number(call.fee));
  out.u64(call.sequence);
  out.i32(PRECOND_TIME);
  out.u64(0n);
  out.u64(0n);
  out.i32(0); // MEMO_NONE
  out.u32(1); // one operation
  out.u32(0); // no operation source
  out.i32(OP_INVOKE_HOST_FUNCTION);
  out.i32(0); // HOST_FUNCTION_TYPE_INVOKE_CONTRACT
  invokeContractArgs(call);
  if (call.sourceAuth) {
    out.u32(1);
    out.i32(0); // SOROBAN_CREDENTIALS_SOURCE_ACCOUNT
    out.i32(0); // SOROBAN_AUTHORIZED_FUNCTION_TYPE_CONTRACT_FN
    invokeContractArgs(call);
    out.u32(0); // no sub-invocations
  } else {
    out.u32(0);
  }
  out.i32(1); // ext v1
  out.fixed(call.sorobanData);
  const unsigned = out.len;

  let id = networkIds.get(passphrase);
  if (!id) {
    id = Buffer.from(networkId(passphrase));
    networkIds.set(passphrase, id);
  }
  // TransactionSignaturePayload = networkId ‖ ENVELOPE_TYPE_TX ‖ Transaction: the envelope so far, prefixed.
  const hash = createHash('sha256').update(id).update(out.buf.subarray(0, unsigned)).digest();
  const signature = signEd25519(call.signer, hash);
  out.u32(1);
  out.fixed(rawKey.subarray(rawKey.length - 4)); // signature hint: last 4 bytes of the public key
  out.opaque(signature);
  return { envelopeXdr: out.buf.toString('base64', 0, out.len), hash: hash.toString('hex') };
}

/** The SorobanTransactionData XDR of a simulation's `transactionData` (base64) as raw bytes. */
export const sorobanDataBytes = (transactionData: string): Buffer => Buffer.from(xdr.SorobanTransactionData.fromXdr(transactionData, 'base64').toXdr());
