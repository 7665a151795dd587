import type { ProjectionDefinition } from '@dob/projections';
import { campaignsProjection } from './campaigns.projection';
import { marketplaceProjection } from './marketplace.projection';
import { membersProjection } from './members.projection';
import { poolEventsProjection } from './pool-events.projection';
import { poolsProjection } from './pools.projection';
import { roundsProjection } from './rounds.projection';
import { tokensProjection } from './tokens.projection';
import { walletHistoryProjection } from './wallet-history.projection';

export * from './campaigns.projection';
export * from './marketplace.projection';
export * from './members.projection';
export * from './pool-events.projection';
export * from './pools.projection';
export * from './rounds.projection';
export * from './tokens.projection';
export * from './wallet-history.projection';

/** Every read model the query API serves from (each its own projection, checkpoint and collections). */
export const readModelProjections: ProjectionDefinition[] = [
  poolsProjection,
  membersProjection,
  roundsProjection,
  poolEventsProjection,
  marketplaceProjection,
  campaignsProjection,
  tokensProjection,
  walletHistoryProjection,
];
export * from './event-handlers';
