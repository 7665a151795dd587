/** What the chain keeps about its history: closed ledgers, applied transactions and their contract events. */

export interface ClosedLedger {
  readonly sequence: number;
  /** Unix seconds. */
  readonly closeTime: bigint;
  /** Hex sha256 of the LedgerHeader XDR. */
  readonly hash: string;
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
  /** Base64 ContractEvent, as carried in transaction meta. */
  readonly eventXdr: string;
}

export interface TransactionRecord {
  readonly hash: string;
  readonly ledger: number;
  readonly applicationOrder: number;
  readonly status: 'SUCCESS' | 'FAILED';
  readonly envelopeXdr: string;
  readonly resultXdr: string;
  readonly resultMetaXdr: string;
  /** Base64 ContractEvent of each event the transaction emitted (empty when it failed). */
  readonly contractEventsXdr: readonly string[];
  readonly createdAt: bigint;
}
