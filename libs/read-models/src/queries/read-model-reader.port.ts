import { pickFields } from '@dob/projections';
import type { CAMPAIGN_FIELDS } from '../projections/campaigns.projection';
import type { POOL_EVENT_FIELDS, PoolEventDoc, PoolEventType } from '../projections/pool-events.projection';
import { LISTING_SORTS, type LISTING_FIELDS, type ListingSort, type ListingStatus } from '../projections/marketplace.projection';
import { MEMBER_FIELDS } from '../projections/members.projection';
import { ROUND_FIELDS } from '../projections/rounds.projection';
import { POOL_FIELDS, POOL_SORTS, type PoolSort } from '../projections/pools.projection';
import type { LEARNED_TOKEN_FIELDS } from '../projections/tokens.projection';
import type { HISTORY_ENTRY_FIELDS } from '../projections/wallet-history.projection';
import type { RowOf } from './document-rows';

/** A row of the tokens read model: a symbol learned from the chain. */
export type LearnedToken = Readonly<RowOf<typeof LEARNED_TOKEN_FIELDS>>;

/**
 * What the query services read from a read-model store: rows in one shape whatever the store, so the services'
 * formatting (amounts, descriptions, featured rules, portfolio math) is written once and the stores give the same
 * answers. Amounts are decimal strings of base units, instants are Dates; every list is in its documented order
 * with the documented tie-breakers. Adapters: SQL (PGlite, PostgreSQL; `sql/`) and MongoDB (`mongo/`).
 */
export interface ReadModelReader extends PoolReads, MarketReads, PortfolioReads {
  /** Every token symbol the tokens model learned from the chain. */
  learnedTokens(): Promise<LearnedToken[]>;
}

export interface Slice {
  readonly limit: number;
  readonly offset: number;
}

export interface Counted<R> {
  readonly rows: R[];
  /** Rows matching the filter, over every page. */
  readonly total: number;
}

export { POOL_SORTS, type PoolSort };

export interface PoolFilter {
  /** Substring of name or ticker, ASCII case-insensitive, taken literally (no wildcards). */
  readonly search?: string;
  readonly networkId?: number;
  readonly accessType?: string;
}

/** Every declared field of the pool document (document-rows.ts), and what the readers join to it. */
export type PoolRow = RowOf<typeof POOL_FIELDS> & {
  member_count: number;
  total_shares: string;
  /** Symbols the tokens model learned for token_to_distribute and distribution_token (null if none). */
  token_to_distribute_symbol: string | null;
  distribution_token_symbol: string | null;
};

/** Every declared field of a holder's balance. */
export type MemberRow = RowOf<typeof MEMBER_FIELDS>;

export const ROUND_STATUSES = ['completed', 'pending', 'expired'] as const;
export type RoundStatus = (typeof ROUND_STATUSES)[number];

/** Every declared field of the round document, and its status at the reader's `now`. */
export type RoundRow = RowOf<typeof ROUND_FIELDS> & { status: RoundStatus };

/** Every declared field of a pool event, its type and amount's kind as the reducer narrows them. */
export type EventRow = Omit<RowOf<typeof POOL_EVENT_FIELDS>, 'event_type' | 'amount_kind'> & Pick<PoolEventDoc, 'event_type' | 'amount_kind'>;

/** The pool fields the featured rules rank by and the featured item shows. */
export const FEATURED_POOL_FIELDS = pickFields(POOL_FIELDS, ['network_id', 'address', 'name', 'ticker', 'estimated_apr']);

export type FeaturedCandidate = RowOf<typeof FEATURED_POOL_FIELDS> & {
  member_count: number;
  /** Σ sales in the 24 h before `now` (base units). */
  volume_24h: string;
  override_reason: string | null;
  override_position: number | null;
};

/** Every declared field of the campaign document, and what the readers join and judge for it. */
export type CampaignRow = RowOf<typeof CAMPAIGN_FIELDS> & {
  /** From the registry entry of the campaign contract, or of the splitter it activated. */
  name: string | null;
  ticker: string | null;
  /** Investors whose shares are positive. */
  contributors: number;
  /** Still fundraising and the deadline not passed at the reader's `now`. */
  active: boolean;
};

export interface PoolReads {
  /** Networks (ascending) where a pool document exists at this address (optionally only `networkId`). */
  poolNetworks(address: string, networkId?: number): Promise<number[]>;
  /** Listed pools, filtered and sorted, ties broken by (network_id, address). */
  poolPage(filter: PoolFilter, sort: PoolSort, slice: Slice): Promise<Counted<PoolRow>>;
  poolRow(networkId: number, address: string): Promise<PoolRow | null>;
  /** Holders with shares > 0, by shares desc then holder; `supply` = Σ their shares. */
  members(networkId: number, pool: string, slice: Slice): Promise<Counted<MemberRow> & { supply: bigint }>;
  /** Rounds by created_at desc, round_id desc, with their status at `now` (optionally only one status). */
  rounds(networkId: number, pool: string, now: Date, status: RoundStatus | undefined, slice: Slice): Promise<Counted<RoundRow>>;
  /** Pool events by date desc, chain_event_id desc, event_id desc. */
  poolEvents(networkId: number, pool: string, eventType: PoolEventType | undefined, slice: Slice): Promise<Counted<EventRow>>;
  /** Every listed pool (optionally of one network) in (network_id, address) order, with what the rules rank by. */
  featuredCandidates(now: Date, networkId?: number): Promise<FeaturedCandidate[]>;
  /**
   * Campaigns (only those active at `now` unless status is `all`) by (network_id, address); the service sorts them
   * (a short, unpaged list), so progress is compared exactly in one place.
   */
  campaigns(now: Date, q: { networkId?: number; status: 'active' | 'all' }): Promise<CampaignRow[]>;
}

export { LISTING_SORTS, type ListingSort };
/** docs/decisions.md#d9: `status` beside is_active; lists show active listings unless asked (`all` = every status). */
export const LISTING_STATUSES = ['active', 'sold', 'cancelled', 'all'] as const;
export type ListingStatusFilter = (typeof LISTING_STATUSES)[number];

export interface ListingFilter {
  readonly status: ListingStatusFilter;
  readonly networkId?: number;
  /** Any of these payment-token addresses. */
  readonly paymentTokens?: readonly string[];
  readonly seller?: string;
}

/** Every declared field of the listing document, and its pool's and token's labels. */
export type ListingRow = Omit<RowOf<typeof LISTING_FIELDS>, 'status'> & {
  status: ListingStatus;
  pool_name: string | null;
  pool_ticker: string | null;
  /** The pool's splitter version ('1' | '2'), null if the pool is unknown. */
  pool_version: string | null;
  /** The payment token's symbol learned by the tokens model (null if none). */
  payment_token_symbol: string | null;
};

export interface MarketStatsRow {
  pool_name: string | null;
  /** Over active listings: min / max price, count, Σ shares, the cheapest one's payment token. */
  floor: string | null;
  highest: string | null;
  active_listings: number;
  shares_listed: string;
  floor_token: string | null;
  /** Over sales: Σ total_price sold after now − 24 h / 7 d / 30 d (no upper bound) and ever, count, the latest's token. */
  v24: string;
  v7: string;
  v30: string;
  total: string;
  sales: number;
  last_token: string | null;
}

export interface MarketReads {
  /** Listings filtered, sorted, ties broken by sale_address. */
  listingPage(filter: ListingFilter, sort: ListingSort, slice: Slice): Promise<Counted<ListingRow>>;
  poolListings(networkId: number, pool: string, status: ListingStatusFilter, sort: ListingSort): Promise<ListingRow[]>;
  listing(saleAddress: string): Promise<ListingRow | null>;
  marketStats(networkId: number, pool: string, now: Date): Promise<MarketStatsRow>;
  /** A crowdfunding campaign's payment token and name (its registry entry, or its splitter's), or null. */
  campaignInfo(networkId: number, address: string): Promise<{ payment_token: string; name: string | null } | null>;
  /** Any pool document's name and splitter version, or null. */
  poolInfo(networkId: number, address: string): Promise<{ name: string | null; pool_version: string | null } | null>;
}

/** A holding is the wallet's balance (members model) with its pool's labels and tokens (pools model). */
export const HOLDING_MEMBER_FIELDS = pickFields(MEMBER_FIELDS, ['network_id', 'pool', 'shares', 'joined_at']);
export const HOLDING_POOL_FIELDS = pickFields(POOL_FIELDS, ['name', 'ticker', 'estimated_apr', 'token_to_distribute', 'distribution_token']);

export type HoldingRow = RowOf<typeof HOLDING_MEMBER_FIELDS> &
  RowOf<typeof HOLDING_POOL_FIELDS> & {
    total_shares: string;
    /** Σ the wallet's claims in the pool (V2 claims and V1 credits). */
    earned: string;
    /** Σ floor(total × shares / total_shares) over V2 rounds completed at `now` the wallet has not claimed, and their count. */
    v2_unclaimed: string;
    v2_unclaimed_rounds: number;
    v1_credited: string;
    v1_withdrawn: string;
  };

/** The round fields a wallet's claimable and upcoming rounds show. */
export const WALLET_ROUND_FIELDS = pickFields(ROUND_FIELDS, ['network_id', 'pool', 'round_id', 'token', 'claimable_from', 'expires_at']);

export type WalletRoundRow = RowOf<typeof WALLET_ROUND_FIELDS> & {
  /** The pool's name. */
  name: string | null;
  /** floor(total × the wallet's shares / total_shares); null when the round has no shares. */
  estimate: string | null;
  status: RoundStatus;
};

/** The pool fields a wallet's scheduled distributions are computed from. */
export const SCHEDULE_POOL_FIELDS = pickFields(POOL_FIELDS, [
  'network_id',
  'address',
  'name',
  'token_to_distribute',
  'schedule_enabled',
  'schedule_first',
  'schedule_interval',
  'schedule_total',
  'distribution_count',
]);
export type SchedulePoolRow = RowOf<typeof SCHEDULE_POOL_FIELDS>;

/** Every declared field of a history entry, and its pool's name. */
export type HistoryRow = RowOf<typeof HISTORY_ENTRY_FIELDS> & { name: string | null };

export interface PortfolioReads {
  /** The wallet's positive balances in listed or unlisted pools with a pool document, by (network_id, pool). */
  holdings(wallet: string, now: Date, networkId?: number, pool?: string): Promise<HoldingRow[]>;
  /**
   * V2 rounds of the wallet's pools that are completed or pending at `now` and not claimed by it, by
   * (claimable_from, network_id, pool, round_id).
   */
  walletRounds(wallet: string, now: Date, networkId?: number): Promise<WalletRoundRow[]>;
  /** The wallet's pools with an enabled schedule, by (network_id, address). */
  scheduledPools(wallet: string, networkId?: number): Promise<SchedulePoolRow[]>;
  /** Entries by occurred_at desc, chain_event_id desc, event_id, side. */
  history(wallet: string, filter: { networkId?: number; type?: string }, slice: Slice): Promise<Counted<HistoryRow>>;
  /** Every campaign's payment token, by `network_id/address`. */
  campaignTokens(): Promise<Map<string, string>>;
}
