import type { MarketplaceQueries } from './marketplace-queries';

/** Marketplace reads as queries and their handlers over MarketplaceQueries. */
export class ListingsQuery {
  constructor(readonly criteria: Parameters<MarketplaceQueries['listings']>[0]) {}
}

export class PoolListingsQuery {
  constructor(readonly criteria: Parameters<MarketplaceQueries['poolListings']>[0]) {}
}

export class MarketplaceStatsQuery {
  constructor(readonly criteria: Parameters<MarketplaceQueries['stats']>[0]) {}
}

type Marketplace = Pick<MarketplaceQueries, 'listings' | 'poolListings' | 'stats'>;

export class ListingsHandler {
  constructor(private readonly marketplace: Marketplace) {}
  execute(q: ListingsQuery): ReturnType<MarketplaceQueries['listings']> {
    return this.marketplace.listings(q.criteria);
  }
}

export class PoolListingsHandler {
  constructor(private readonly marketplace: Marketplace) {}
  execute(q: PoolListingsQuery): ReturnType<MarketplaceQueries['poolListings']> {
    return this.marketplace.poolListings(q.criteria);
  }
}

export class MarketplaceStatsHandler {
  constructor(private readonly marketplace: Marketplace) {}
  execute(q: MarketplaceStatsQuery): ReturnType<MarketplaceQueries['stats']> {
    return this.marketplace.stats(q.criteria);
  }
}
