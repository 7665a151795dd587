import type { AdminOp } from './admin-ops';
import type { ClosedLedger, TransactionRecord } from './chain-records';

/** One closed ledger as persisted: the admin ops made before it, its header and its applied transactions. */
export interface LedgerLogEntry {
  readonly adminOps: readonly AdminOp[];
  readonly ledger: ClosedLedger;
  readonly transactions: readonly TransactionRecord[];
}

/** Where the chain writes its history, one entry per closed ledger, append-only. */
export interface ChainLog {
  append(entry: LedgerLogEntry): void;
}
