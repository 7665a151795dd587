import { EventCatalog, type EventDefinition } from './catalog';
import type { ChainRef } from './chain-ref';
import { crowdfundingEvents } from './crowdfunding.events';
import type { Event, EventOf } from './define-event';
import { distributionEvents } from './distribution.events';
import { indexerEvents } from './indexer.events';
import { marketplaceEvents } from './marketplace.events';
import { poolEvents } from './pool.events';
import { registryEvents } from './registry.events';
import { tokenEvents } from './token.events';
import { unknownEvents } from './unknown.events';

/** Every chain-derived, time-driven, registry and indexer event definition, at schema version 1. */
const CHAIN_EVENTS = [
  ...poolEvents,
  ...marketplaceEvents,
  ...distributionEvents,
  ...crowdfundingEvents,
  ...registryEvents,
  ...tokenEvents,
  ...unknownEvents,
  ...indexerEvents,
];

/** Every chain-derived, time-driven, registry and indexer event type, at schema version 1. */
export function chainEventCatalog(): EventDefinition[] {
  return [...CHAIN_EVENTS];
}

/** An EventCatalog holding the chain events plus any other definitions (e.g. service-owned aggregates). */
export function createChainEventCatalog(extra: readonly EventDefinition[] = []): EventCatalog {
  return new EventCatalog([...chainEventCatalog(), ...extra]);
}

/** The catalog's events as one discriminated union: a `switch (e.type)` narrows `e.data` to that event's payload. */
export type ChainEvent = EventOf<(typeof CHAIN_EVENTS)[number]>;
export type ChainEventType = ChainEvent['type'];
/** Payload of each chain event type: `ChainEventData['PoolLocked']`. */
export type ChainEventData = { [E in ChainEvent as E['type']]: E['data'] };
/** The types derived from a chain event (their payload carries its `chain` ref), as opposed to registry and indexer events. */
export type ChainDerivedEventType = { [K in ChainEventType]: ChainEventData[K] extends { chain: ChainRef } ? K : never }[ChainEventType];
/** The members of the union with the type names K (one, or several as a smaller union). */
export type ChainEventOf<K extends ChainEventType> = { [P in K]: Event<P, ChainEventData[P]> }[K];

const CHAIN_EVENT_TYPES: ReadonlySet<string> = new Set(CHAIN_EVENTS.map((d) => d.type));

/**
 * Narrows a stored event (type: string, data: unknown) to the union. Checking the type name is enough: every
 * payload was validated by this catalog on append and is upcast to the current version on read
 * (docs/decisions.md#d13), so a `PoolLocked` event's data is a PoolLocked payload.
 */
export function isChainEvent<E extends Event>(e: E): e is E & ChainEvent {
  return CHAIN_EVENT_TYPES.has(e.type);
}

/** Whether a type name is one of the catalog's chain event types. */
export function isChainEventType(type: string): type is ChainEventType {
  return CHAIN_EVENT_TYPES.has(type);
}

/** Narrows an event to the catalog types listed (as `isChainEvent`, for a subset). */
export function isEventOf<E extends Event, K extends ChainEventType>(e: E, types: readonly K[]): e is E & ChainEventOf<K> {
  return (types as readonly string[]).includes(e.type);
}
