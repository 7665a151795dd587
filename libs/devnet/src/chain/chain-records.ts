/** What the chain keeps about its history: closed ledgers, applied transactions and their contract events. */

export interface ClosedLedger {
  readonly sequence: number;
  /** Unix seconds. */
  readonly closeTime: bigint;
  /** Hex sha256 of the LedgerHeader XDR. */
  readonly hash: string;
  readonly previousHash: string;
  /** Base64 LedgerHeader XDR. */
  readonly headerXdr: string;
  readonly transactionHashes: readonly string[];
}

export interface ContractEventRecord {
  readonly ledger: number;
  /** 1-based application order of the emitting transaction. */
  readonly txIndex: number;
  readonly opIndex: number;
  readonly eventIndex: number;
  readonly txHash: string;
  readonly type: 'contract' | 'system';
  readonly contractId: string;
  /** Base64 ScVal per topic segment. */
  readonly topics: readonly string[];
  /** Base64 ScVal. */
  readonly value: string;
}

/**
 * Kept compact on purpose (history may hold 1M events): the TransactionMeta is rebuilt on demand from the return
 * value and the transaction's events rather than stored twice.
 */
export interface TransactionRecord {
  readonly hash: string;
  readonly ledger: number;
  readonly applicationOrder: number;
  readonly status: 'SUCCESS' | 'FAILED';
  readonly envelopeXdr: string;
  readonly resultXdr: string;
  /** Base64 ScVal, null when the transaction failed. */
  readonly returnValueXdr: string | null;
  readonly resourceFeeCharged: bigint;
  readonly events: readonly ContractEventRecord[];
  readonly createdAt: bigint;
}
