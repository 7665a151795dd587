import type { SchemaObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';
import {
  CLAIMABLE_ROUND,
  CROWDFUNDING_POOL,
  DISTRIBUTION_ROUND,
  FEATURED_POOL,
  HOLDING,
  HISTORY_ENTRY,
  LISTING,
  MARKETPLACE_STATS,
  POOL_DETAIL,
  POOL_MEMBER,
  POOL_EVENT,
  POOL_LIST_ITEM,
  POOL_LISTING,
} from '@dob/read-models';
import { int, money, obj } from './schema-parts';

/**
 * Response schemas of the read endpoints (pools, marketplace, portfolio), written once so /api/agent/openapi.json
 * documents the real shapes. Each item's schema comes from its API view (libs/read-models queries/api-view.ts), the
 * same declaration as its mapping; the position and the distributions are composed here from those.
 */
export const poolListItemSchema: SchemaObject = POOL_LIST_ITEM.schema;
export const poolDetailSchema: SchemaObject = POOL_DETAIL.schema;
export const featuredSchema: SchemaObject = FEATURED_POOL.schema;
export const crowdfundingSchema: SchemaObject = CROWDFUNDING_POOL.schema;
export const memberSchema: SchemaObject = POOL_MEMBER.schema;
export const roundSchema: SchemaObject = DISTRIBUTION_ROUND.schema;
export const poolEventSchema: SchemaObject = POOL_EVENT.schema;
export const listingSchema: SchemaObject = LISTING.schema;
export const poolListingSchema: SchemaObject = POOL_LISTING.schema;
export const statsSchema: SchemaObject = MARKETPLACE_STATS.schema;
export const holdingSchema: SchemaObject = HOLDING.schema;
const claimableSchema: SchemaObject = CLAIMABLE_ROUND.schema;
export const positionSchema: SchemaObject = {
  allOf: [holdingSchema, obj({ active_listing: { ...listingSchema, nullable: true }, claimable_rounds: { type: 'array', items: claimableSchema } })],
};
export const distributionsSchema = obj({
  claimable: { type: 'array', items: claimableSchema },
  upcoming: {
    type: 'array',
    items: obj({
      ...claimableSchema.properties,
      round_id: { ...int, nullable: true },
      estimated_amount: { ...money, nullable: true },
      kind: { type: 'string', enum: ['pending_round', 'scheduled'] },
    }),
  },
});
export const historySchema: SchemaObject = HISTORY_ENTRY.schema;
