import { xdr } from '@stellar/stellar-sdk';

/**
 * Builders for the XDR the chain reports about a transaction (TransactionResult, TransactionMeta v4), written
 * against stellar-sdk 17's generated wire shapes (`X.fromXdrObject(wire)`), so clients decode them exactly as they
 * decode testnet's.
 */

type Wire<T extends { fromXdrObject(w: never): unknown }> = Parameters<T['fromXdrObject']>[0];

/** TransactionResultCode values (Stellar-transaction.x). */
export const TxResultCode = {
  txSuccess: 0,
  txFailed: -1,
  txTooEarly: -2,
  txTooLate: -3,
  txMissingOperation: -4,
  txBadSeq: -5,
  txBadAuth: -6,
  txInsufficientBalance: -7,
  txNoAccount: -8,
  txInsufficientFee: -9,
  txBadAuthExtra: -10,
  txInternalError: -11,
  txNotSupported: -12,
  txMalformed: -16,
  txSorobanInvalid: -17,
} as const;
export type TxErrorName = Exclude<keyof typeof TxResultCode, 'txSuccess' | 'txFailed'>;

/** InvokeHostFunctionResultCode values. */
const INVOKE_HOST_FUNCTION_TRAPPED = -2;
/** OperationType.invokeHostFunction. */
const OPERATION_INVOKE_HOST_FUNCTION = 24;

function encodeResult(wire: Wire<typeof xdr.TransactionResult>): string {
  return xdr.TransactionResult.fromXdrObject(wire).toXdr('base64');
}

/** A transaction rejected before inclusion (sendTransaction ERROR): no operation results, no fee charged. */
export function rejectedResultXdr(code: TxErrorName, feeCharged = 0n): string {
  return encodeResult({ feeCharged, result: { code: TxResultCode[code] } as Wire<typeof xdr.TransactionResult>['result'], ext: { v: 0 } });
}

/** Included and successful: the operation result carries sha256(InvokeHostFunctionSuccessPreImage). */
export function successResultXdr(feeCharged: bigint, successHash: Uint8Array): string {
  return encodeResult({
    feeCharged,
    result: {
      code: 0,
      results: [{ code: 0, tr: { type: OPERATION_INVOKE_HOST_FUNCTION, invokeHostFunctionResult: { code: 0, success: successHash } } }],
    },
    ext: { v: 0 },
  } as Wire<typeof xdr.TransactionResult>);
}

/** Included but the contract trapped: txFailed with invokeHostFunctionTrapped; fee and sequence are consumed. */
export function trappedResultXdr(feeCharged: bigint): string {
  return encodeResult({
    feeCharged,
    result: {
      code: -1,
      results: [{ code: 0, tr: { type: OPERATION_INVOKE_HOST_FUNCTION, invokeHostFunctionResult: { code: INVOKE_HOST_FUNCTION_TRAPPED } } }],
    },
    ext: { v: 0 },
  } as Wire<typeof xdr.TransactionResult>);
}

/**
 * InvokeHostFunctionSuccessPreImage = { returnValue, events } (Stellar-transaction.x); its sha256 is the success hash.
 */
export function successPreImageXdr(returnValue: xdr.ScVal, events: readonly xdr.ContractEvent[]): Uint8Array {
  return xdr.InvokeHostFunctionSuccessPreImage.fromXdrObject({
    returnValue: returnValue.toXdrObject(),
    events: events.map((e) => e.toXdrObject()),
  } as Wire<typeof xdr.InvokeHostFunctionSuccessPreImage>).toXdr('raw');
}

/**
 * TransactionMeta v4 (protocol 23): contract events live in operations[0].events and the return value in
 * sorobanMeta.returnValue — where stellar-sdk's parseTransactionInfo reads `returnValue`.
 */
export function transactionMetaXdr(input: {
  readonly returnValue: xdr.ScVal | null;
  readonly events: readonly xdr.ContractEvent[];
  readonly nonRefundableFee: bigint;
  readonly diagnosticEvents?: readonly xdr.DiagnosticEvent[];
}): string {
  const wire = {
    v: 4,
    v4: {
      ext: { v: 0 },
      txChangesBefore: [],
      operations: [{ ext: { v: 0 }, changes: [], events: input.events.map((e) => e.toXdrObject()) }],
      txChangesAfter: [],
      sorobanMeta: {
        ext: {
          v: 1,
          v1: {
            ext: { v: 0 },
            totalNonRefundableResourceFeeCharged: input.nonRefundableFee,
            totalRefundableResourceFeeCharged: 0n,
            rentFeeCharged: 0n,
          },
        },
        returnValue: input.returnValue ? input.returnValue.toXdrObject() : null,
      },
      events: [],
      diagnosticEvents: (input.diagnosticEvents ?? []).map((e) => e.toXdrObject()),
    },
  };
  return xdr.TransactionMeta.fromXdrObject(wire as Wire<typeof xdr.TransactionMeta>).toXdr('base64');
}
