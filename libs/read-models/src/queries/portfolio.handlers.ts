import type { PortfolioQueries } from './portfolio-queries';

/** A wallet's portfolio reads as queries and their handlers over PortfolioQueries (the wallet is the API key's). */
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

type Portfolio = Pick<PortfolioQueries, 'holdings' | 'position' | 'listings' | 'distributions' | 'history'>;

export class HoldingsHandler {
  constructor(private readonly portfolio: Portfolio) {}
  execute(q: HoldingsQuery): ReturnType<PortfolioQueries['holdings']> {
    return this.portfolio.holdings(q.wallet, q.networkId);
  }
}

export class PositionHandler {
  constructor(private readonly portfolio: Portfolio) {}
  execute(q: PositionQuery): ReturnType<PortfolioQueries['position']> {
    return this.portfolio.position(q.wallet, q.poolAddress, q.networkId);
  }
}

export class OwnListingsHandler {
  constructor(private readonly portfolio: Portfolio) {}
  execute(q: OwnListingsQuery): ReturnType<PortfolioQueries['listings']> {
    return this.portfolio.listings(q.wallet, q.criteria);
  }
}

export class PortfolioDistributionsHandler {
  constructor(private readonly portfolio: Portfolio) {}
  execute(q: PortfolioDistributionsQuery): ReturnType<PortfolioQueries['distributions']> {
    return this.portfolio.distributions(q.wallet, q.networkId);
  }
}

export class HistoryHandler {
  constructor(private readonly portfolio: Portfolio) {}
  execute(q: HistoryQuery): ReturnType<PortfolioQueries['history']> {
    return this.portfolio.history(q.wallet, q.criteria);
  }
}
