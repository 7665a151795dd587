import type { xdr } from '@stellar/stellar-sdk';
import type { RawChainEvent } from '../decoding/chain-event';

/**
 * The slice of Stellar RPC the indexer needs. The adapter speaks JSON-RPC over HTTP through stellar-sdk's
 * rpc.Server; tests use a fake.
 */
export interface RpcEventFilter {
  readonly type?: 'contract';
  /** At most 5 per filter (stellar-rpc getEvents limit). */
  readonly contractIds?: readonly string[];
  /** base64 ScVal XDR per segment, '*' = any one segment; at most 5 topic lists per filter. */
  readonly topics?: readonly (readonly string[])[];
}

export type GetEventsRequest =
  | { readonly startLedger: number; readonly endLedger?: number; readonly filters: readonly RpcEventFilter[]; readonly limit: number }
  | { readonly cursor: string; readonly filters: readonly RpcEventFilter[]; readonly limit: number };

export interface GetEventsPage {
  readonly events: readonly RawChainEvent[];
  readonly cursor: string;
  readonly latestLedger: number;
  readonly oldestLedger: number;
  /** Close time of the latest ledger (ISO), when the RPC reports it. */
  readonly latestLedgerCloseTime: string | null;
}

export interface RpcHealth {
  readonly latestLedger: number;
  readonly oldestLedger: number;
}

/** stellar-rpc's getLedgerEntries takes at most this many keys a call. */
export const MAX_LEDGER_ENTRY_KEYS = 200;

/** What sits behind a contract id: a wasm (hex hash), a Stellar Asset Contract, or nothing (not deployed). */
export type ContractExecutableInfo = { readonly kind: 'wasm'; readonly hash: string } | { readonly kind: 'sac' } | null;

/** The top-level contract call of a transaction (InvokeHostFunction → invokeContract). */
export interface ContractInvocation {
  readonly contractId: string;
  readonly functionName: string;
  readonly args: readonly xdr.ScVal[];
}

/** Per call: a signal that abandons the request (closes its connection), e.g. when the call timed out. */
export interface RpcCallOptions {
  readonly signal?: AbortSignal;
}

export interface ChainRpc {
  getEvents(request: GetEventsRequest, options?: RpcCallOptions): Promise<GetEventsPage>;
  getHealth(options?: RpcCallOptions): Promise<RpcHealth>;
  /**
   * Reads the contracts' instance entries in one getLedgerEntries call (at most MAX_LEDGER_ENTRY_KEYS ids) and returns
   * each id's executable, null where the RPC has no instance entry for it.
   */
  getContractExecutables(contractIds: readonly string[], options?: RpcCallOptions): Promise<ReadonlyMap<string, ContractExecutableInfo>>;
  /**
   * getTransaction: the transaction's top-level contract invocation, or null when the RPC no longer has the
   * transaction (outside its retention) or it is not a plain invokeContract.
   */
  getInvocation(txHash: string, options?: RpcCallOptions): Promise<ContractInvocation | null>;
}

/** stellar-rpc answers a startLedger outside its retention with an error naming the oldest ledger. */
export function isRetentionError(err: unknown): boolean {
  const msg = err instanceof Error ? err.message : String(err);
  return /oldest ledger|must be between|before the oldest|out of range|ledger range/i.test(msg);
}
