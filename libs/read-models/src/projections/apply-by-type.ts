import type { RecordedEvent } from '@dob/event-store';
import type { ProjectionState } from '@dob/projections';

export type EventHandler = (state: ProjectionState, e: RecordedEvent<any>) => Promise<void> | void;

/**
 * A reducer that dispatches on the event type. Read models here keep state across events (a sale reduces the
 * listing it hits), so each event reads the documents as the events before it left them.
 */
export function applyByType(handlers: Readonly<Record<string, EventHandler>>) {
  return async (state: ProjectionState, e: RecordedEvent): Promise<void> => {
    const handle = handlers[e.type];
    if (handle) await handle(state, e);
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
