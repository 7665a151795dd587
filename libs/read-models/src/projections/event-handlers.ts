import { isChainEvent, isChainEventType, type ChainEventType } from '@dob/domain';
import type { RecordedChainEvent, RecordedEvent, RecordedOf } from '@dob/event-store';
import type { ProjectionDefinition, ProjectionState } from '@dob/projections';

/**
 * Handlers keyed by the event type each one handles, typed against the domain event union (as emmett's `canHandle`):
 * the handler under `PoolLocked` is given a stored PoolLocked event, and a key that is not an event type does not
 * compile. `Ctx` is what the handler works on (a projection's documents, the fan-out's lookups), `R` what it returns.
 */
export type EventHandlerMap<Ctx, R> = { readonly [K in ChainEventType]?: (ctx: Ctx, e: RecordedOf<K>) => R };

/** Handlers declared once: their subscription is derived from them, so the two cannot drift apart. */
export interface HandledEvents<Ctx, R> {
  /**
   * The event types the runner asks the store for: exactly the map's keys. A handler without its subscription (the
   * event never reaches it in production) or a subscription without a handler cannot be written.
   */
  readonly eventTypes: readonly ChainEventType[];
  /** Runs the handler of the event's type; undefined for an event the map does not handle. */
  handle(ctx: Ctx, e: RecordedEvent): R | undefined;
}

export function handledEvents<Ctx, R>(handlers: EventHandlerMap<Ctx, R>): HandledEvents<Ctx, R> {
  const eventTypes = Object.keys(handlers).filter(isChainEventType);
  // An empty subscription means "every type" to the runner: a map that handles nothing must not read everything.
  if (eventTypes.length === 0) throw new Error('an event handler map needs at least one event type');
  return {
    eventTypes,
    handle: (ctx, e) => (isChainEvent(e) ? dispatch(handlers, ctx, e) : undefined),
  };
}

function dispatch<K extends ChainEventType, Ctx, R>(handlers: EventHandlerMap<Ctx, R>, ctx: Ctx, e: RecordedOf<K>): R | undefined {
  const handle = handlers[e.type];
  return handle ? handle(ctx, e) : undefined;
}

/** A read-model handler of one event type, or of several given as a union that `switch (e.type)` narrows. */
export type EventHandler<K extends ChainEventType> = (state: ProjectionState, e: RecordedChainEvent<K>) => Promise<void> | void;

/** One read-model handler per event type, each given the stored event with that type's payload. */
export type EventHandlers = EventHandlerMap<ProjectionState, Promise<void> | void>;

/**
 * A read-model projection's subscription and reducer from one handler map: spread it into the definition
 * (`...byEventType({ PoolLocked(s, e) {…} })`). Read models here keep state across events (a sale reduces the
 * listing it hits), so each event reads the documents as the events before it left them.
 */
export function byEventType(handlers: EventHandlers): Pick<ProjectionDefinition, 'eventTypes' | 'apply'> {
  const handled = handledEvents(handlers);
  return {
    eventTypes: handled.eventTypes,
    // Not async: a rebuild applies millions of events, and each got a wrapper promise around its handler's. A
    // handler's promise is handed on; one that returns nothing gets one settled promise; one that throws, a rejection.
    apply: (state, e) => {
      try {
        return handled.handle(state, e) ?? APPLIED;
      } catch (err) {
        return Promise.reject(err as Error);
      }
    },
  };
}

const APPLIED: Promise<void> = Promise.resolve();

/** The chain ref every chain-derived payload carries. */
export interface Chain {
  network_id: number;
  contract_id: string;
  tx_hash: string;
  ledger: number;
  event_id: string;
  closed_at: string;
}
