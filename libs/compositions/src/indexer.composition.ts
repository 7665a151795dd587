import { startLeasedNetworkIndexing, startNetworkIndexing, type IngestionStatus, type NetworkIndexing, type NetworkIndexingOptions } from '@dob/indexer';
import type { LeaseKeeper } from '@dob/leases';
import { fieldLogger } from '@dob/observability';
import type { AppContext, Started } from './app-context';

export interface IndexerOptions extends Omit<NetworkIndexingOptions, 'logger'> {
  readonly networkId: number;
  /** Several indexers on one PostgreSQL: one ingests the network (the lease holder), the others stand by. */
  readonly leases?: LeaseKeeper;
}

export interface RunningIndexer extends Started, Pick<NetworkIndexing, 'health'> {
  /** Null while a leased indexer stands by (another one ingests the network). */
  status(): IngestionStatus | null;
}

/**
 * The indexer: one Stellar network ingested into the event store, on /health as `indexer_<network>` and in the
 * metrics. Composed by `npm run start:indexer` and `npm start`; the caller starts the lease keeper, if any.
 */
export function startIndexer(c: AppContext, o: IndexerOptions): RunningIndexer {
  const { leases, ...rest } = o;
  const options: NetworkIndexingOptions = { ...rest, logger: fieldLogger(c.log, 'indexer') };
  const indexing = leases ? startLeasedNetworkIndexing(c.storage.eventStore, options, leases) : startNetworkIndexing(c.storage.eventStore, options);
  c.metrics.trackIndexer(o.networkId, () => indexing.status() ?? { ledgersBehind: null, eventsIngested: 0 });
  c.health.register(`indexer_${o.networkId}`, () => indexing.health());
  return { status: () => indexing.status(), health: () => indexing.health(), stop: () => indexing.stop() };
}
