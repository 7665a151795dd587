import type { LedgerLogEntry } from '../chain/chain-log.port';
import type { ClosedLedger, TransactionRecord } from '../chain/chain-records';

/** One ledger per NDJSON line; bigints as decimal strings. */
export function encodeLedgerLogEntry(entry: LedgerLogEntry): string {
  return JSON.stringify(entry, (_key, value: unknown) => (typeof value === 'bigint' ? value.toString() : value));
}

type Raw<T> = { [K in keyof T]: T[K] extends bigint ? string : T[K] };

export function decodeLedgerLogEntry(line: string): LedgerLogEntry {
  const raw = JSON.parse(line) as { adminOps: LedgerLogEntry['adminOps']; ledger: Raw<ClosedLedger>; transactions: Raw<TransactionRecord>[] };
  return {
    adminOps: raw.adminOps,
    ledger: { ...raw.ledger, closeTime: BigInt(raw.ledger.closeTime) },
    transactions: raw.transactions.map((t) => ({ ...t, resourceFeeCharged: BigInt(t.resourceFeeCharged), createdAt: BigInt(t.createdAt) })),
  };
}
