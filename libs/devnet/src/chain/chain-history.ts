import type { ClosedLedger, ContractEventRecord, TransactionRecord } from './chain-records';
import { compareCursors, type EventCursor } from './event-cursor';

/**
 * The chain's retained history: a contiguous run of ledgers [oldest, latest], their transactions by hash and their
 * contract events in cursor order. Like stellar-rpc, history older than the retention window is dropped.
 */
export class ChainHistory {
  private ledgers: ClosedLedger[] = [];
  private readonly transactions = new Map<string, TransactionRecord>();
  private events: ContractEventRecord[] = [];

  constructor(private readonly retentionLedgers: number) {
    if (!Number.isInteger(retentionLedgers) || retentionLedgers < 1) throw new Error('retentionLedgers must be a positive integer');
  }

  append(ledger: ClosedLedger, transactions: readonly TransactionRecord[]): void {
    const latest = this.latest();
    if (latest && ledger.sequence !== latest.sequence + 1) {
      throw new Error(`ledger ${ledger.sequence} does not follow ${latest.sequence}`);
    }
    this.ledgers.push(ledger);
    for (const tx of transactions) {
      this.transactions.set(tx.hash, tx);
      for (const event of tx.events) this.events.push(event);
    }
    this.prune();
  }

  latest(): ClosedLedger | undefined {
    return this.ledgers[this.ledgers.length - 1];
  }

  oldest(): ClosedLedger | undefined {
    return this.ledgers[0];
  }

  ledger(sequence: number): ClosedLedger | undefined {
    const first = this.ledgers[0];
    if (!first) return undefined;
    return this.ledgers[sequence - first.sequence];
  }

  transaction(hash: string): TransactionRecord | undefined {
    return this.transactions.get(hash);
  }

  get eventCount(): number {
    return this.events.length;
  }

  /**
   * Visits events with start ≤ cursor and ledger < endLedger in order, until `visit` returns false.
   */
  scanEvents(start: EventCursor, endLedger: number, visit: (event: ContractEventRecord) => boolean): void {
    let lo = 0;
    let hi = this.events.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (compareCursors(cursorOf(this.events[mid]), start) < 0) lo = mid + 1;
      else hi = mid;
    }
    for (let i = lo; i < this.events.length; i++) {
      const event = this.events[i];
      if (event.ledger >= endLedger) return;
      if (!visit(event)) return;
    }
  }

  private prune(): void {
    const excess = this.ledgers.length - this.retentionLedgers;
    // Drop in batches so that pruning stays amortised O(1) per ledger.
    if (excess <= 0 || (excess < 64 && excess * 20 < this.retentionLedgers)) return;
    const dropped = this.ledgers.splice(0, excess);
    for (const ledger of dropped) for (const hash of ledger.transactionHashes) this.transactions.delete(hash);
    const oldest = this.ledgers[0].sequence;
    let cut = 0;
    while (cut < this.events.length && this.events[cut].ledger < oldest) cut++;
    if (cut > 0) this.events = this.events.slice(cut);
  }
}

export function cursorOf(event: ContractEventRecord): EventCursor {
  return { ledger: event.ledger, tx: event.txIndex, op: event.opIndex, event: event.eventIndex };
}
