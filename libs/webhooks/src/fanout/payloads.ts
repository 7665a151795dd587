import { formatAmount } from '@dob/domain';
import type {
  CampaignEffectivelyFailed,
  CampaignFinalized,
  DistributionCompleted,
  ListingCreated,
  ListingSold,
  PayloadOf,
  PoolInitialized,
  RoundClaimAvailable,
  RoundCreated,
  SharesTransferred,
} from '@dob/domain';
import { shareCount } from './money';

/** One webhook notification: the body's `event`, `timestamp` and `data` (delivery_id is added per webhook). */
export interface Notification<N extends string = WebhookEventName> {
  readonly event: N;
  /** ISO 8601: when it happened (ledger close time, or when a time-driven condition was observed). */
  readonly timestamp: string;
  readonly data: Record<string, unknown>;
}

/** Registry metadata of a pool (null fields when the pool was discovered but never registered). */
export interface PoolLabel {
  readonly name: string | null;
  readonly ticker: string | null;
  readonly accessType: string | null;
  readonly distributionType: string | null;
}

export const UNKNOWN_POOL: PoolLabel = { name: null, ticker: null, accessType: null, distributionType: null };

/** How a token is shown: its asset code (or contract id when unknown) and decimals. */
export interface TokenLabel {
  readonly symbol: string;
  readonly decimals: number;
}

type P<D> = PayloadOf<D>;

// Field lists are exactly docs/agent-api.md#webhook-payloads, in its order.

export function distributionCreated(
  e: P<typeof RoundCreated>,
  ctx: { pool: PoolLabel; token: TokenLabel; totalShares: bigint },
): Notification<'distribution_created'> {
  return {
    event: 'distribution_created',
    timestamp: e.chain.closed_at,
    data: {
      pool_address: e.chain.contract_id,
      pool_name: ctx.pool.name,
      network_id: e.chain.network_id,
      round_id: Number(e.round_id),
      token: ctx.token.symbol,
      total_amount: formatAmount(e.total_amount, ctx.token.decimals),
      total_shares: shareCount(ctx.totalShares),
      claimable_from: e.claimable_from,
      expires_at: e.expires_at,
    },
  };
}

/** V1 `dist_all`: a round claimable at once with no expiry (docs/decisions.md#d4), numbered per pool from 1. */
export function distributionCreatedV1(
  e: P<typeof DistributionCompleted>,
  ctx: { pool: PoolLabel; token: TokenLabel; totalShares: bigint; roundId: number },
): Notification<'distribution_created'> {
  return {
    event: 'distribution_created',
    timestamp: e.chain.closed_at,
    data: {
      pool_address: e.chain.contract_id,
      pool_name: ctx.pool.name,
      network_id: e.chain.network_id,
      round_id: ctx.roundId,
      token: ctx.token.symbol,
      total_amount: formatAmount(e.total_distributed, ctx.token.decimals),
      total_shares: shareCount(ctx.totalShares),
      claimable_from: e.chain.closed_at,
      expires_at: null,
    },
  };
}

export function claimAvailable(
  e: P<typeof RoundClaimAvailable>,
  ctx: { pool: PoolLabel; token: TokenLabel; totalShares: bigint },
): Notification<'claim_available'> {
  const total = BigInt(e.total_amount);
  const perShare = ctx.totalShares > 0n ? total / ctx.totalShares : 0n;
  return {
    event: 'claim_available',
    timestamp: e.observed_at,
    data: {
      pool_address: e.pool,
      pool_name: ctx.pool.name,
      network_id: e.network_id,
      round_id: Number(e.round_id),
      token: ctx.token.symbol,
      total_amount: formatAmount(total, ctx.token.decimals),
      amount_per_share: formatAmount(perShare, ctx.token.decimals),
      expires_at: e.expires_at,
    },
  };
}

/**
 * Direct transfers and airdrops only: marketplace sales have marketplace_sale_completed and crowdfunding
 * allocations crowdfunding_finalized, so those reasons are not repeated here.
 */
export function sharesTransferred(e: P<typeof SharesTransferred>, ctx: { pool: PoolLabel }): Notification<'shares_transferred'> | null {
  if (e.reason !== 'direct') return null;
  return {
    event: 'shares_transferred',
    timestamp: e.chain.closed_at,
    data: {
      pool_address: e.pool,
      pool_name: ctx.pool.name,
      network_id: e.chain.network_id,
      from_address: e.from,
      to_address: e.to,
      shares: shareCount(e.shares),
      transaction_hash: e.chain.tx_hash,
    },
  };
}

/** The first sighting of a pool's `init` (docs/decisions.md#d3: no contract emits a "pool created" event). */
export function poolCreated(e: P<typeof PoolInitialized>, ctx: { pool: PoolLabel }): Notification<'pool_created'> {
  return {
    event: 'pool_created',
    timestamp: e.chain.closed_at,
    data: {
      pool_address: e.chain.contract_id,
      pool_name: ctx.pool.name,
      pool_ticker: ctx.pool.ticker,
      network_id: e.chain.network_id,
      creator_address: e.admin,
      access_type: ctx.pool.accessType,
      distribution_type: ctx.pool.distributionType,
    },
  };
}

export function listingCreated(
  e: P<typeof ListingCreated>,
  ctx: { pool: PoolLabel; token: TokenLabel; saleAddress: string },
): Notification<'marketplace_listing_created'> {
  return {
    event: 'marketplace_listing_created',
    timestamp: e.chain.closed_at,
    data: {
      sale_address: ctx.saleAddress,
      pool_address: e.pool,
      pool_name: ctx.pool.name,
      network_id: e.chain.network_id,
      seller_address: e.seller,
      shares_amount: shareCount(e.shares_amount),
      price_per_share: formatAmount(e.price_per_share, ctx.token.decimals),
      payment_token: ctx.token.symbol,
    },
  };
}

export function saleCompleted(
  e: P<typeof ListingSold>,
  ctx: { pool: PoolLabel; token: TokenLabel; saleAddress: string | null },
): Notification<'marketplace_sale_completed'> {
  const shares = BigInt(e.shares_sold);
  const total = BigInt(e.total_price);
  // On chain total = shares × price exactly (marketplace.events.ts), so the division is exact when the event lacks it.
  const price = e.price_per_share !== null ? BigInt(e.price_per_share) : shares > 0n ? total / shares : 0n;
  return {
    event: 'marketplace_sale_completed',
    timestamp: e.chain.closed_at,
    data: {
      sale_address: ctx.saleAddress,
      pool_address: e.pool,
      pool_name: ctx.pool.name,
      network_id: e.chain.network_id,
      seller_address: e.seller,
      buyer_address: e.buyer,
      shares: shareCount(shares),
      price_per_share: formatAmount(price, ctx.token.decimals),
      total_price: formatAmount(total, ctx.token.decimals),
      payment_token: ctx.token.symbol,
      transaction_hash: e.chain.tx_hash,
    },
  };
}

export interface CampaignFigures {
  readonly pool: PoolLabel;
  readonly token: TokenLabel;
  /** soft cap shares × price per share (docs/decisions.md#d10). */
  readonly targetAmount: bigint;
  readonly contributorCount: number;
}

export function crowdfundingFinalized(e: P<typeof CampaignFinalized>, ctx: CampaignFigures): Notification<'crowdfunding_finalized'> {
  return {
    event: 'crowdfunding_finalized',
    timestamp: e.chain.closed_at,
    data: {
      pool_address: e.chain.contract_id,
      pool_name: ctx.pool.name,
      network_id: e.chain.network_id,
      total_raised: formatAmount(e.total_raised, ctx.token.decimals),
      target_amount: formatAmount(ctx.targetAmount, ctx.token.decimals),
      contributor_count: ctx.contributorCount,
      payment_token: ctx.token.symbol,
    },
  };
}

/** From `cf_done` with outcome failed, or the time-driven CampaignEffectivelyFailed (deadline passed, not finalized). */
export function crowdfundingFailed(
  e: { networkId: number; campaign: string; totalRaised: string; at: string },
  ctx: CampaignFigures,
): Notification<'crowdfunding_failed'> {
  return {
    event: 'crowdfunding_failed',
    timestamp: e.at,
    data: {
      pool_address: e.campaign,
      pool_name: ctx.pool.name,
      network_id: e.networkId,
      total_raised: formatAmount(e.totalRaised, ctx.token.decimals),
      target_amount: formatAmount(ctx.targetAmount, ctx.token.decimals),
      contributor_count: ctx.contributorCount,
      refund_status: 'processing',
    },
  };
}

type Builder<N extends string> = (...args: never[]) => Notification<N> | null;

/**
 * Every webhook event, named once with what builds its payload: the names (WEBHOOK_EVENTS, in this order, the
 * order docs/agent-api.md lists them) are the keys, and the compiler checks that each builder sends its own key
 * (a builder of a name not listed here gives a Notification the fan-out does not accept).
 */
function byEventName<T extends { readonly [N in keyof T]: readonly Builder<N & string>[] }>(payloads: T): T {
  return payloads;
}

export const WEBHOOK_PAYLOADS = byEventName({
  distribution_created: [distributionCreated, distributionCreatedV1],
  claim_available: [claimAvailable],
  shares_transferred: [sharesTransferred],
  pool_created: [poolCreated],
  marketplace_listing_created: [listingCreated],
  marketplace_sale_completed: [saleCompleted],
  crowdfunding_finalized: [crowdfundingFinalized],
  crowdfunding_failed: [crowdfundingFailed],
});

export type WebhookEventName = keyof typeof WEBHOOK_PAYLOADS;
/** The webhook event names (docs/agent-api.md#webhooks); `test` is sent only by the test endpoint. */
export const WEBHOOK_EVENTS = Object.keys(WEBHOOK_PAYLOADS) as readonly WebhookEventName[];

export type CampaignFailureSource = P<typeof CampaignFinalized> | P<typeof CampaignEffectivelyFailed>;
