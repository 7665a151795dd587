import { isChainEvent, type ChainEventType } from '@dob/domain';
import type { RecordedChainEvent, RecordedEvent, RecordedOf } from '@dob/event-store';
import type { ProjectionState } from '@dob/projections';

/** A handler of one event type, or of several given as a union that `switch (e.type)` narrows. */
export type EventHandler<K extends ChainEventType> = (state: ProjectionState, e: RecordedChainEvent<K>) => Promise<void> | void;

/** One handler per event type, each given the stored event with that type's payload. */
export type EventHandlers = { readonly [K in ChainEventType]?: (state: ProjectionState, e: RecordedOf<K>) => Promise<void> | void };

/**
 * A reducer that dispatches on the event type. Read models here keep state across events (a sale reduces the
 * listing it hits), so each event reads the documents as the events before it left them.
 */
export function applyByType(handlers: EventHandlers) {
  return async (state: ProjectionState, e: RecordedEvent): Promise<void> => {
    if (isChainEvent(e)) await dispatch(handlers, state, e);
  };
}

async function dispatch<K extends ChainEventType>(handlers: EventHandlers, state: ProjectionState, e: RecordedOf<K>): Promise<void> {
  const handle = handlers[e.type];
  if (handle) await handle(state, e);
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
