import { EventCatalog, type EventDefinition } from './catalog';
import { crowdfundingEvents } from './crowdfunding.events';
import { distributionEvents } from './distribution.events';
import { indexerEvents } from './indexer.events';
import { marketplaceEvents } from './marketplace.events';
import { poolEvents } from './pool.events';
import { registryEvents } from './registry.events';
import { tokenEvents } from './token.events';
import { unknownEvents } from './unknown.events';

/** Every chain-derived, time-driven, registry and indexer event type, at schema version 1. */
export function chainEventCatalog(): EventDefinition[] {
  return [
    ...poolEvents,
    ...marketplaceEvents,
    ...distributionEvents,
    ...crowdfundingEvents,
    ...registryEvents,
    ...tokenEvents,
    ...unknownEvents,
    ...indexerEvents,
  ] as EventDefinition[];
}

/** An EventCatalog holding the chain events plus any other definitions (e.g. service-owned aggregates). */
export function createChainEventCatalog(extra: readonly EventDefinition[] = []): EventCatalog {
  return new EventCatalog([...chainEventCatalog(), ...extra]);
}
