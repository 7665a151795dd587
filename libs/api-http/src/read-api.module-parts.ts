import type { Provider, Type } from '@nestjs/common';
import type { ReadQueries } from '@dob/read-models';
import { READ_QUERIES } from './cqrs/read-queries';
import { marketplaceModuleParts } from './marketplace/marketplace.module-parts';
import { poolsModuleParts } from './pools/pools.module-parts';
import { portfolioModuleParts } from './portfolio/portfolio.module-parts';

/** What the host gives the read API: the read models' query services (createReadQueries from @dob/read-models). */
export interface ReadApiDependencies {
  readonly queries: ReadQueries;
  /**
   * The read models' change count (openCachedReader().changes). Given, the 200 answers of clock- and caller-free
   * reads are kept as bytes until it moves (http/read-response-cache.ts); absent, every request is answered by Nest.
   */
  readonly changes?: () => number | undefined;
}

/** The three read areas (pools, marketplace, portfolio) over one set of query services; none when the host gives no read models. */
export function readApiParts(deps?: ReadApiDependencies): { controllers: Type[]; providers: Provider[] } {
  if (!deps) return { controllers: [], providers: [] };
  const areas: { controllers: Type[]; providers: Provider[] }[] = [poolsModuleParts, marketplaceModuleParts, portfolioModuleParts];
  return {
    controllers: areas.flatMap((a) => a.controllers),
    providers: [{ provide: READ_QUERIES, useValue: deps.queries }, ...areas.flatMap((a) => a.providers)],
  };
}
