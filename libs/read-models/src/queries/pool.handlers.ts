import type { CrowdfundingQueries } from './crowdfunding-queries';
import type { FeaturedQueries } from './featured-queries';
import type { PoolActivityQueries } from './pool-activity-queries';
import type { PoolQueries } from './pool-queries';

/**
 * Pool discovery reads as queries (the API dispatches them on its query bus) and their handlers: plain classes over
 * the query services, which keep the caching, resolution and shaping.
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

export class ListPoolsHandler {
  constructor(private readonly pools: Pick<PoolQueries, 'list'>) {}
  execute(q: ListPoolsQuery): ReturnType<PoolQueries['list']> {
    return this.pools.list(q.criteria);
  }
}

export class PoolDetailHandler {
  constructor(private readonly pools: Pick<PoolQueries, 'detail'>) {}
  execute(q: PoolDetailQuery): ReturnType<PoolQueries['detail']> {
    return this.pools.detail(q.address, q.networkId);
  }
}

export class FeaturedPoolsHandler {
  constructor(private readonly featured: Pick<FeaturedQueries, 'list'>) {}
  execute(q: FeaturedPoolsQuery): ReturnType<FeaturedQueries['list']> {
    return this.featured.list({ networkId: q.networkId });
  }
}

export class CrowdfundingCampaignsHandler {
  constructor(private readonly crowdfunding: Pick<CrowdfundingQueries, 'list'>) {}
  execute(q: CrowdfundingCampaignsQuery): ReturnType<CrowdfundingQueries['list']> {
    return this.crowdfunding.list(q.criteria);
  }
}

type Activity = Pick<PoolActivityQueries, 'members' | 'distributions' | 'events'>;

export class PoolMembersHandler {
  constructor(private readonly activity: Activity) {}
  execute(q: PoolMembersQuery): ReturnType<PoolActivityQueries['members']> {
    return this.activity.members(q.criteria);
  }
}

export class PoolDistributionsHandler {
  constructor(private readonly activity: Activity) {}
  execute(q: PoolDistributionsQuery): ReturnType<PoolActivityQueries['distributions']> {
    return this.activity.distributions(q.criteria);
  }
}

export class PoolEventsHandler {
  constructor(private readonly activity: Activity) {}
  execute(q: PoolEventsQuery): ReturnType<PoolActivityQueries['events']> {
    return this.activity.events(q.criteria);
  }
}
