import type { RecordedEvent } from '@dob/event-store';
import type { ProjectionTables } from '@dob/projections';
import type { SqlExecutor } from '@dob/sql';

export type EventHandler = (tx: SqlExecutor, t: ProjectionTables, e: RecordedEvent<any>) => Promise<void>;

/**
 * Applies a batch one event at a time, in `$all` order, through a handler per event type. Read models here keep
 * state across events (a sale reduces the listing it hits), so each event sees the writes of the ones before it.
 */
export function applyByType(handlers: Readonly<Record<string, EventHandler>>) {
  return async (tx: SqlExecutor, events: readonly RecordedEvent[], t: ProjectionTables): Promise<void> => {
    for (const e of events) {
      const handle = handlers[e.type];
      if (handle) await handle(tx, t, e);
    }
  };
}

/** The chain ref every chain-derived payload carries. */
export interface Chain {
  network_id: number;
  contract_id: string;
  tx_hash: string;
  ledger: number;
  event_id: string;
  closed_at: string;
}
