import { walletEvents } from '@dob/auth';
import { createChainEventCatalog, type EventCatalog } from '@dob/domain';

/** Every event type this system appends: chain-derived, registry, indexer, and the wallet (API key) aggregate. */
export function systemEventCatalog(): EventCatalog {
  return createChainEventCatalog([...walletEvents]);
}
