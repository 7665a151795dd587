import { AppError, formatAmount, percent } from '@dob/domain';
import { chainName } from '../networks';
import { HISTORY_ENTRY_FIELDS } from '../projections/wallet-history.projection';
import { ApiView, computed, shownFields } from './api-view';
import { MarketplaceQueries, type Listing, type ListingStatusFilter } from './marketplace-queries';
import { nextDistribution } from './pool-queries';
import { iso, int, sliceOf, type Page, type Paging, type QueryContext } from './query-context';
import {
  HOLDING_MEMBER_FIELDS,
  HOLDING_POOL_FIELDS,
  WALLET_ROUND_FIELDS,
  type HistoryRow,
  type HoldingRow,
  type WalletRoundRow,
} from './read-model-reader.port';
import { int as intSchema, money, nstr, num, str, time, type JsonSchema } from './response-schemas';
import { tokenLabel, type TokenLookup } from './token-directory';

interface TokenContext {
  readonly tokens: TokenLookup;
}
const member = shownFields(HOLDING_MEMBER_FIELDS);
const pool = shownFields(HOLDING_POOL_FIELDS);
const holdingShown = <V>(schema: JsonSchema, value: (r: HoldingRow, c: TokenContext) => V) => computed(schema, value);
/** Earnings are paid in the pool's distribution token. */
const earningsToken = (r: HoldingRow, c: TokenContext) => c.tokens.get(r.network_id, r.distribution_token);
/** V2 rounds not claimed, plus V1 allocations not yet withdrawn (never below zero). */
const unclaimedOf = (r: HoldingRow): bigint => {
  const v1Open = BigInt(r.v1_credited) - BigInt(r.v1_withdrawn);
  return BigInt(r.v2_unclaimed) + (v1Open > 0n ? v1Open : 0n);
};

/** DobProtocol's documented holdings record (`GET /portfolio/holdings`, docs/decisions.md#d1 for its amounts), field for field. */
export const HOLDING = new ApiView({
  pool_address: member.plain('pool'),
  pool_name: pool.plain('name'),
  pool_ticker: pool.plain('ticker'),
  network_id: member.plain('network_id'),
  chain_name: holdingShown(str, (r) => chainName(r.network_id)),
  shares: holdingShown(intSchema, (r) => int(r.shares)),
  total_shares: holdingShown(intSchema, (r) => int(r.total_shares)),
  participation_percent: holdingShown(num, (r) => percent(BigInt(r.shares), BigInt(r.total_shares))),
  distribution_token: holdingShown(
    nstr,
    (r, c) => tokenLabel(c.tokens, r.network_id, r.token_to_distribute) ?? (r.distribution_token ? earningsToken(r, c).symbol : null),
  ),
  total_earned: holdingShown(money, (r, c) => formatAmount(r.earned, earningsToken(r, c).decimals)),
  unclaimed_amount: holdingShown(money, (r, c) => formatAmount(unclaimedOf(r), earningsToken(r, c).decimals)),
  unclaimed_rounds: holdingShown(intSchema, (r) => r.v2_unclaimed_rounds),
  estimated_apr: pool.number('estimated_apr'),
  joined_at: member.plain('joined_at'),
});
export type Holding = ReturnType<typeof HOLDING.item>;

const walletRound = shownFields(WALLET_ROUND_FIELDS);
const roundShown = <V>(schema: JsonSchema, value: (r: WalletRoundRow, c: TokenContext) => V) => computed(schema, value);
const roundToken = (r: WalletRoundRow, c: TokenContext) => c.tokens.get(r.network_id, r.token);

/** A round of the wallet's pools it can claim (or, pending, will): the wallet's estimated share of it. */
export const CLAIMABLE_ROUND = new ApiView({
  pool_address: walletRound.plain('pool'),
  pool_name: roundShown(nstr, (r) => r.name),
  network_id: walletRound.plain('network_id'),
  round_id: walletRound.plain('round_id'),
  token: roundShown(nstr, (r, c) => roundToken(r, c).symbol),
  estimated_amount: roundShown(money, (r, c) => formatAmount(r.estimate ?? '0', roundToken(r, c).decimals)),
  claimable_from: roundShown(time, (r) => iso(r.claimable_from)),
  expires_at: walletRound.plain('expires_at'),
});
export type ClaimableRound = ReturnType<typeof CLAIMABLE_ROUND.item>;

export interface Position extends Holding {
  active_listing: Listing | null;
  claimable_rounds: ClaimableRound[];
}

/** A pending round (as claimable rounds show it) or a scheduled distribution whose round does not exist yet. */
export type UpcomingDistribution = Omit<ClaimableRound, 'round_id' | 'estimated_amount'> & {
  /** null for a scheduled distribution. */
  round_id: number | null;
  estimated_amount: string | null;
  kind: 'pending_round' | 'scheduled';
};

interface HistoryContext {
  readonly tokens: TokenLookup;
  /** Every campaign's payment token by `network_id/address`: crowdfunding entries name no token of their own. */
  readonly campaignTokens: ReadonlyMap<string, string>;
}
const entry = shownFields(HISTORY_ENTRY_FIELDS);
const entryShown = <V>(schema: JsonSchema, value: (r: HistoryRow, c: HistoryContext) => V) => computed(schema, value);
const entryToken = (r: HistoryRow, c: HistoryContext) => c.tokens.get(r.network_id, r.token ?? c.campaignTokens.get(`${r.network_id}/${r.pool}`) ?? null);

/** A wallet's history entry as the API lists it, in the order it sends it. */
export const HISTORY_ENTRY = new ApiView({
  type: entry.plain('type'),
  pool_address: entry.plain('pool'),
  pool_name: entryShown(nstr, (r) => r.name),
  network_id: entry.plain('network_id'),
  counterparty: entry.plain('counterparty'),
  shares: entryShown({ ...intSchema, nullable: true }, (r) => (r.shares === null ? null : int(r.shares))),
  amount: entryShown({ ...money, nullable: true }, (r, c) => (r.amount === null ? null : formatAmount(r.amount, entryToken(r, c).decimals))),
  token: entryShown(nstr, (r, c) => entryToken(r, c).symbol),
  transaction_hash: entry.plain('tx_hash'),
  date: entryShown(time, (r) => iso(r.occurred_at)),
});
export type HistoryEntry = ReturnType<typeof HISTORY_ENTRY.item>;

/**
 * The key's wallet across pools. Earnings: V2 claims + V1 credited allocations. Unclaimed: for each V2 round that
 * is claimable now (completed status) and not claimed by the wallet, floor(total × balance / total_shares) — the
 * contract's own formula on a live-balance round (docs/contracts.md §3) — plus V1 allocations not yet withdrawn.
 */
export class PortfolioQueries {
  private readonly marketplace: MarketplaceQueries;

  constructor(private readonly ctx: QueryContext) {
    this.marketplace = new MarketplaceQueries(ctx);
  }

  /**
   * Holdings of the rows and token lookup they were made from. A cached reader hands out the same frozen rows (and
   * TokenDirectory the same lookup) until the read models change, and mapping a wallet's rows — BigInt sums, amount
   * formatting — was the largest allocation of a mixed read load (docs/benchmarks-journal.md, "Mixed load: the tail").
   */
  private readonly holdingsOf = new WeakMap<readonly HoldingRow[], { tokens: TokenLookup; holdings: readonly Holding[] }>();

  async holdings(wallet: string, networkId?: number): Promise<readonly Holding[]> {
    const [rows, tokens] = await Promise.all([this.ctx.reader.holdings(wallet, this.ctx.now(), networkId), this.ctx.tokens.lookup()]);
    const made = this.holdingsOf.get(rows);
    if (made?.tokens === tokens) return made.holdings;
    // Frozen: the same objects answer later requests.
    const holdings = Object.freeze(rows.map((r) => Object.freeze(HOLDING.item(r, { tokens }))));
    this.holdingsOf.set(rows, { tokens, holdings });
    return holdings;
  }

  async position(wallet: string, pool: string, networkId?: number): Promise<Position> {
    const [rows, tokens] = await Promise.all([this.ctx.reader.holdings(wallet, this.ctx.now(), networkId, pool), this.ctx.tokens.lookup()]);
    if (rows.length === 0) throw AppError.notFound(`No position of ${wallet} in pool ${pool}`);
    if (rows.length > 1) {
      throw AppError.validation(`network_id is required: positions in pool ${pool} exist on several networks`, {
        fields: { network_id: 'network_id is required for this address' },
      });
    }
    const r = rows[0]!;
    const own = await this.marketplace.listings({ page: 1, limit: 1, sort: 'created_desc', status: 'active', networkId: r.network_id, seller: wallet });
    const claimable = (await this.distributions(wallet, r.network_id)).claimable.filter((c) => c.pool_address === pool);
    return { ...HOLDING.item(r, { tokens }), active_listing: own.items.find((l) => l.pool_address === pool) ?? null, claimable_rounds: claimable };
  }

  async listings(wallet: string, q: Paging & { networkId?: number; status: ListingStatusFilter }): Promise<Page<Listing>> {
    return this.marketplace.listings({ ...q, sort: 'created_desc', seller: wallet });
  }

  async distributions(wallet: string, networkId?: number): Promise<{ claimable: ClaimableRound[]; upcoming: UpcomingDistribution[] }> {
    const now = this.ctx.now();
    const [rounds, pools, tokens] = await Promise.all([
      this.ctx.reader.walletRounds(wallet, now, networkId),
      this.ctx.reader.scheduledPools(wallet, networkId),
      this.ctx.tokens.lookup(),
    ]);
    const claimable: ClaimableRound[] = [];
    const upcoming: UpcomingDistribution[] = [];
    for (const r of rounds) {
      const item = CLAIMABLE_ROUND.item(r, { tokens });
      if (r.status === 'completed') claimable.push(item);
      else upcoming.push({ ...item, kind: 'pending_round' });
    }
    for (const p of pools) {
      const at = nextDistribution(p, now);
      if (at)
        upcoming.push({
          pool_address: p.address,
          pool_name: p.name,
          network_id: p.network_id,
          round_id: null,
          token: tokenLabel(tokens, p.network_id, p.token_to_distribute),
          estimated_amount: null,
          claimable_from: at,
          expires_at: null,
          kind: 'scheduled',
        });
    }
    upcoming.sort(
      (a, b) =>
        (a.claimable_from ?? '').localeCompare(b.claimable_from ?? '') ||
        a.pool_address.localeCompare(b.pool_address) ||
        (a.round_id ?? -1) - (b.round_id ?? -1),
    );
    return { claimable, upcoming };
  }

  async history(wallet: string, q: Paging & { networkId?: number; type?: string }): Promise<Page<HistoryEntry>> {
    const [{ rows, total }, tokens, campaignTokens] = await Promise.all([
      this.ctx.reader.history(wallet, { networkId: q.networkId, type: q.type }, sliceOf(q)),
      this.ctx.tokens.lookup(),
      this.ctx.reader.campaignTokens(),
    ]);
    return {
      items: rows.map((r) => HISTORY_ENTRY.item(r, { tokens, campaignTokens })),
      page: q.page,
      limit: q.limit,
      total,
    };
  }
}
