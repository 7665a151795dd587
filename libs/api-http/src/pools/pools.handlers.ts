import type { CrowdfundingQueries, PoolActivityQueries, PoolQueries } from '@dob/read-models';
import { readHandler } from '../cqrs/read-queries';

/**
 * The pool reads as queries (the controller sends them on the query bus), then their handlers: each calls one
 * query service method of libs/read-models, which keeps the caching, resolution and shaping.
 */
export class ListPoolsQuery {
  constructor(readonly criteria: Parameters<PoolQueries['list']>[0]) {}
}

export class PoolDetailQuery {
  constructor(
    readonly address: string,
    readonly networkId?: number,
  ) {}
}

export class FeaturedPoolsQuery {
  constructor(readonly networkId?: number) {}
}

export class CrowdfundingCampaignsQuery {
  constructor(readonly criteria: Parameters<CrowdfundingQueries['list']>[0]) {}
}

export class PoolMembersQuery {
  constructor(readonly criteria: Parameters<PoolActivityQueries['members']>[0]) {}
}

export class PoolDistributionsQuery {
  constructor(readonly criteria: Parameters<PoolActivityQueries['distributions']>[0]) {}
}

export class PoolEventsQuery {
  constructor(readonly criteria: Parameters<PoolActivityQueries['events']>[0]) {}
}

/** Each pool read and the query service call that answers it (pools.module-parts.ts gives them to ApiModule). */
export const poolsHandlers = [
  readHandler(ListPoolsQuery, (read, q) => read.pools.list(q.criteria)),
  readHandler(PoolDetailQuery, (read, q) => read.pools.detail(q.address, q.networkId)),
  readHandler(FeaturedPoolsQuery, (read, q) => read.featured.list({ networkId: q.networkId })),
  readHandler(CrowdfundingCampaignsQuery, (read, q) => read.crowdfunding.list(q.criteria)),
  readHandler(PoolMembersQuery, (read, q) => read.poolActivity.members(q.criteria)),
  readHandler(PoolDistributionsQuery, (read, q) => read.poolActivity.distributions(q.criteria)),
  readHandler(PoolEventsQuery, (read, q) => read.poolActivity.events(q.criteria)),
];
