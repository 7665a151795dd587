import type { MarketplaceQueries } from '@dob/read-models';
import { readHandler } from '../cqrs/read-queries';

/** Marketplace reads as queries (the controller sends them on the query bus), then their handlers over MarketplaceQueries. */
export class ListingsQuery {
  constructor(readonly criteria: Parameters<MarketplaceQueries['listings']>[0]) {}
}

export class PoolListingsQuery {
  constructor(readonly criteria: Parameters<MarketplaceQueries['poolListings']>[0]) {}
}

export class MarketplaceStatsQuery {
  constructor(readonly criteria: Parameters<MarketplaceQueries['stats']>[0]) {}
}

/** Each marketplace read and the query service call that answers it (marketplace.module-parts.ts gives them to ApiModule). */
export const marketplaceHandlers = [
  readHandler(ListingsQuery, (read, q) => read.marketplace.listings(q.criteria)),
  readHandler(PoolListingsQuery, (read, q) => read.marketplace.poolListings(q.criteria)),
  readHandler(MarketplaceStatsQuery, (read, q) => read.marketplace.stats(q.criteria)),
];
