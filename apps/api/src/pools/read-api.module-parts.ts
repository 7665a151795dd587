import type { Provider, Type } from '@nestjs/common';
import { MarketplaceReadController } from '../marketplace/marketplace-read.controller';
import { PortfolioController } from '../portfolio/portfolio.controller';
import { PoolsController } from './pools.controller';
import { readQueriesProvider, type ReadApiDependencies } from './read-queries.provider';

/** Controllers + providers of the read API; none when the host gives no read models. */
export function readApiParts(deps?: ReadApiDependencies): { controllers: Type[]; providers: Provider[] } {
  if (!deps) return { controllers: [], providers: [] };
  return { controllers: [PoolsController, MarketplaceReadController, PortfolioController], providers: [readQueriesProvider(deps)] };
}

export type { ReadApiDependencies };
