import type { Provider, Type } from '@nestjs/common';
import {
  CrowdfundingCampaignsHandler,
  CrowdfundingCampaignsQuery,
  FeaturedPoolsHandler,
  FeaturedPoolsQuery,
  HistoryHandler,
  HistoryQuery,
  HoldingsHandler,
  HoldingsQuery,
  ListingsHandler,
  ListingsQuery,
  ListPoolsHandler,
  ListPoolsQuery,
  MarketplaceStatsHandler,
  MarketplaceStatsQuery,
  OwnListingsHandler,
  OwnListingsQuery,
  PoolDetailHandler,
  PoolDetailQuery,
  PoolDistributionsHandler,
  PoolDistributionsQuery,
  PoolEventsHandler,
  PoolEventsQuery,
  PoolListingsHandler,
  PoolListingsQuery,
  PoolMembersHandler,
  PoolMembersQuery,
  PortfolioDistributionsHandler,
  PortfolioDistributionsQuery,
  PositionHandler,
  PositionQuery,
  type ReadQueries,
} from '@dob/read-models';
import { query, type MessageBinding } from './cqrs/message-bindings';
import { MarketplaceReadController } from './marketplace/marketplace-read.controller';
import { PortfolioController } from './portfolio/portfolio.controller';
import { PoolsController } from './pools/pools.controller';

/** What the host gives the read API: the read models' query services (createReadQueries from @dob/read-models). */
export interface ReadApiDependencies {
  readonly queries: ReadQueries;
  /**
   * The read models' change count (openCachedReader().changes). Given, the 200 answers of clock- and caller-free
   * reads are kept as bytes until it moves (http/read-response-cache.ts); absent, every request is answered by Nest.
   */
  readonly changes?: () => number | undefined;
}

/** Every read as a query on the query bus, each handled over its query service. */
function readBindings(q: ReadQueries): MessageBinding[] {
  return [
    query(ListPoolsQuery, new ListPoolsHandler(q.pools)),
    query(PoolDetailQuery, new PoolDetailHandler(q.pools)),
    query(FeaturedPoolsQuery, new FeaturedPoolsHandler(q.featured)),
    query(CrowdfundingCampaignsQuery, new CrowdfundingCampaignsHandler(q.crowdfunding)),
    query(PoolMembersQuery, new PoolMembersHandler(q.poolActivity)),
    query(PoolDistributionsQuery, new PoolDistributionsHandler(q.poolActivity)),
    query(PoolEventsQuery, new PoolEventsHandler(q.poolActivity)),
    query(ListingsQuery, new ListingsHandler(q.marketplace)),
    query(PoolListingsQuery, new PoolListingsHandler(q.marketplace)),
    query(MarketplaceStatsQuery, new MarketplaceStatsHandler(q.marketplace)),
    query(HoldingsQuery, new HoldingsHandler(q.portfolio)),
    query(PositionQuery, new PositionHandler(q.portfolio)),
    query(OwnListingsQuery, new OwnListingsHandler(q.portfolio)),
    query(PortfolioDistributionsQuery, new PortfolioDistributionsHandler(q.portfolio)),
    query(HistoryQuery, new HistoryHandler(q.portfolio)),
  ];
}

/** Controllers and bus bindings of the read API; none when the host gives no read models. */
export function readApiParts(deps?: ReadApiDependencies): { controllers: Type[]; providers: Provider[]; bindings: MessageBinding[] } {
  if (!deps) return { controllers: [], providers: [], bindings: [] };
  return { controllers: [PoolsController, MarketplaceReadController, PortfolioController], providers: [], bindings: readBindings(deps.queries) };
}
