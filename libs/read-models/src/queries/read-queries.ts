import { CrowdfundingQueries } from './crowdfunding-queries';
import { FeaturedQueries } from './featured-queries';
import { MarketplaceQueries } from './marketplace-queries';
import { PoolActivityQueries } from './pool-activity-queries';
import { PoolQueries } from './pool-queries';
import { PortfolioQueries } from './portfolio-queries';
import { queryContext, type ReadQueryDeps } from './query-context';

/** Every read-side query service over one read-model reader (plain TypeScript; the API wraps these in controllers). */
export interface ReadQueries {
  readonly pools: PoolQueries;
  readonly poolActivity: PoolActivityQueries;
  readonly featured: FeaturedQueries;
  readonly crowdfunding: CrowdfundingQueries;
  readonly marketplace: MarketplaceQueries;
  readonly portfolio: PortfolioQueries;
}

export function createReadQueries(deps: ReadQueryDeps): ReadQueries {
  const ctx = queryContext(deps);
  return {
    pools: new PoolQueries(ctx),
    poolActivity: new PoolActivityQueries(ctx),
    featured: new FeaturedQueries(ctx),
    crowdfunding: new CrowdfundingQueries(ctx),
    marketplace: new MarketplaceQueries(ctx),
    portfolio: new PortfolioQueries(ctx),
  };
}
