import type { PortfolioQueries } from '@dob/read-models';
import { readHandler } from '../cqrs/read-queries';

/** A wallet's portfolio reads as queries (the wallet is the API key's), then their handlers over PortfolioQueries. */
export class HoldingsQuery {
  constructor(
    readonly wallet: string,
    readonly networkId?: number,
  ) {}
}

export class PositionQuery {
  constructor(
    readonly wallet: string,
    readonly poolAddress: string,
    readonly networkId?: number,
  ) {}
}

export class OwnListingsQuery {
  constructor(
    readonly wallet: string,
    readonly criteria: Parameters<PortfolioQueries['listings']>[1],
  ) {}
}

export class PortfolioDistributionsQuery {
  constructor(
    readonly wallet: string,
    readonly networkId?: number,
  ) {}
}

export class HistoryQuery {
  constructor(
    readonly wallet: string,
    readonly criteria: Parameters<PortfolioQueries['history']>[1],
  ) {}
}

/** Each portfolio read and the query service call that answers it (portfolio.module-parts.ts gives them to ApiModule). */
export const portfolioHandlers = [
  readHandler(HoldingsQuery, (read, q) => read.portfolio.holdings(q.wallet, q.networkId)),
  readHandler(PositionQuery, (read, q) => read.portfolio.position(q.wallet, q.poolAddress, q.networkId)),
  readHandler(OwnListingsQuery, (read, q) => read.portfolio.listings(q.wallet, q.criteria)),
  readHandler(PortfolioDistributionsQuery, (read, q) => read.portfolio.distributions(q.wallet, q.networkId)),
  readHandler(HistoryQuery, (read, q) => read.portfolio.history(q.wallet, q.criteria)),
];
