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

/**
 * Read models rebuilt side by side over one shared read of the history when several are rebuilt
 * (`ops projections rebuild --all`; ProjectionRunner.rebuildAll `groups`). Their types overlap most — over a 1M
 * history they read 2.23M events of a union of 0.99M — and of the four only distribution_rounds and pool_members hold
 * large slot caches (the other two only add rows). The other four barely overlap (a group of them read 51 pages
 * against 53 apart, and took longer), and all eight in one group held every cache at once: over 1 GiB, or GC-bound
 * under the heap cap (docs/benchmarks-journal.md, "One read for the four that share most").
 */
export const READ_MODEL_REBUILD_GROUPS: readonly (readonly string[])[] = [
  [roundsProjection.name, membersProjection.name, poolEventsProjection.name, walletHistoryProjection.name],
];
