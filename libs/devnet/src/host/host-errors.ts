import { xdr } from '@stellar/stellar-sdk';

/**
 * Failures raised while executing an invocation. Every failure aborts the whole invocation (state and events
 * are discarded), matching Soroban where an error in any frame without try_call fails the transaction.
 */
export class HostError extends Error {
  constructor(
    readonly scError: xdr.ScError,
    message: string,
  ) {
    super(message);
    this.name = 'HostError';
  }

  /** A contract's own `Error(Contract, #n)` (a `#[contracterror]` variant). */
  static contract(code: number): HostError {
    return new HostError(xdr.ScError.sceContract(code), `Error(Contract, #${code})`);
  }

  /** A missing or mismatching authorization: the host reports `Error(Auth, InvalidAction)`. */
  static auth(detail: string): HostError {
    return new HostError(xdr.ScError.sceAuth(xdr.ScErrorCode.scecInvalidAction), `Error(Auth, InvalidAction): ${detail}`);
  }

  /** A Rust `panic!` / trap inside a wasm contract surfaces as `Error(WasmVm, InvalidAction)`. */
  static panic(detail: string): HostError {
    return new HostError(xdr.ScError.sceWasmVm(xdr.ScErrorCode.scecInvalidAction), `Error(WasmVm, InvalidAction): ${detail}`);
  }

  static valueUnexpectedType(detail: string): HostError {
    return new HostError(xdr.ScError.sceValue(xdr.ScErrorCode.scecUnexpectedType), `Error(Value, UnexpectedType): ${detail}`);
  }

  /** Calling a contract that does not exist / a missing ledger entry. */
  static storageMissing(detail: string): HostError {
    return new HostError(xdr.ScError.sceStorage(xdr.ScErrorCode.scecMissingValue), `Error(Storage, MissingValue): ${detail}`);
  }

  /**
   * A ledger entry outside the transaction's declared footprint (or a write to a read-only one): soroban-env-host
   * raises `Error(Storage, ExceededLimit)` and the operation fails as INVOKE_HOST_FUNCTION_TRAPPED.
   */
  static outsideFootprint(detail: string): HostError {
    return new HostError(xdr.ScError.sceStorage(xdr.ScErrorCode.scecExceededLimit), `Error(Storage, ExceededLimit): ${detail}`);
  }

  /** Calling a function the contract does not export. */
  static missingFunction(fn: string): HostError {
    return new HostError(xdr.ScError.sceWasmVm(xdr.ScErrorCode.scecMissingValue), `Error(WasmVm, MissingValue): no function ${fn}`);
  }

  /** i128 arithmetic overflow inside the host (e.g. checked_add without a mapped contract error). */
  static arith(detail: string): HostError {
    return new HostError(xdr.ScError.sceObject(xdr.ScErrorCode.scecArithDomain), `Error(Object, ArithDomain): ${detail}`);
  }
}
