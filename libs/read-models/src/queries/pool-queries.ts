import { formatAmount } from '@dob/domain';
import { chainName } from '../networks';
import { POOL_FIELDS } from '../projections/pools.projection';
import { ApiView, ExtendedView, computed, shownFields } from './api-view';
import { resolvePoolNetwork } from './pool-resolution';
import { iso, int, sliceOf, type Page, type Paging, type QueryContext } from './query-context';
import { POOL_SORTS, type LearnedToken, type PoolRow, type PoolSort } from './read-model-reader.port';
import { bool, int as intSchema, money, nstr, obj, str, time, type JsonSchema } from './response-schemas';
import { tokenLabel, type TokenResolver } from './token-directory';

export { POOL_SORTS, type PoolRow, type PoolSort };
export const ACCESS_TYPES = ['rtj', 'p', 'qr', 'stk'] as const;

/** Spec "Access types": what each code means, shown as pool_data.way_to_access. */
const WAY_TO_ACCESS: Record<string, string> = {
  rtj: 'Users request to join; an admin approves and airdrops shares',
  p: 'Users buy shares directly (marketplace or crowdfunding)',
  qr: 'Users join by scanning a QR code',
  stk: 'Users stake tokens to receive shares',
};

/** Defaults of get_distribution_config on V2 (docs/contracts.md §3): 12 h interval, no delay, 365-day expiry. */
const V2_DEFAULT_CONFIG = { min_interval_seconds: 43_200, claim_delay_seconds: 0, round_expiry_seconds: 31_536_000 };

export interface PoolListQuery extends Paging {
  readonly search?: string;
  readonly networkId?: number;
  readonly accessType?: string;
  readonly sort: PoolSort;
}

/** What a pool item reads beyond its row: the token directory (with the rows' learned symbols), and the clock. */
interface ListContext {
  readonly tokens?: TokenResolver;
}
interface DetailContext {
  readonly tokens: TokenResolver;
  readonly now: Date;
}

const pool = shownFields(POOL_FIELDS);
const shown = <V>(schema: JsonSchema, value: (r: PoolRow, c: DetailContext) => V) => computed(schema, value);
const tokenToDistribute = computed(nstr, (r: PoolRow, c: ListContext) =>
  c.tokens ? tokenLabel(c.tokens, r.network_id, r.token_to_distribute) : r.token_to_distribute,
);

const POOL_DATA = new ApiView({
  name: pool.plain('name'),
  ticker: pool.plain('ticker'),
  max_participants: pool.plain('max_participants'),
  access: pool.plain('access_type'),
  distribution_type: pool.plain('distribution_type'),
  estimated_apr: pool.plain('estimated_apr'),
});

/** A pool in the list: the API's names and formats of the pool document's shown fields, in the order it sends them. */
export const POOL_LIST_ITEM = new ApiView({
  address: pool.plain('address'),
  name: pool.plain('name'),
  ticker: pool.plain('ticker'),
  network_id: pool.plain('network_id'),
  chain_name: computed(str, (r: PoolRow) => chainName(r.network_id)),
  access_type: pool.plain('access_type', { enum: [...ACCESS_TYPES] }),
  distribution_type: pool.plain('distribution_type'),
  estimated_apr: pool.number('estimated_apr'),
  member_count: computed(intSchema, (r: PoolRow) => int(r.member_count)),
  max_participants: pool.plain('max_participants'),
  token_to_distribute: tokenToDistribute,
  pool_data: POOL_DATA.nested(),
  created_at: pool.plain('created_at'),
});

/** A pool's detail: its list item, then what only the detail shows (pool_data extended in place). */
export const POOL_DETAIL = new ExtendedView(POOL_LIST_ITEM, {
  pool_data: shown(obj({ ...POOL_DATA.schema.properties, way_to_access: nstr, token_to_distribute: nstr }), (r, c) => ({
    ...POOL_DATA.item(r, c),
    way_to_access: r.access_type ? (WAY_TO_ACCESS[r.access_type] ?? r.access_type) : null,
    token_to_distribute: tokenToDistribute.value(r, c),
  })),
  creator_address: pool.plain('creator_address'),
  total_distributed: shown(money, (r, c) => formatAmount(r.total_distributed, c.tokens.get(r.network_id, r.distribution_token).decimals)),
  total_shares: shown(intSchema, (r) => int(r.total_shares)),
  // Open to newcomers while the cap table can still change and the participant cap (if any) is not reached.
  // A pool initialised with mutable = false is as locked as one that called lock_contract (same contract state).
  allow_entry: shown(bool, (r) => !r.locked && r.mutable !== false && (r.max_participants === null || int(r.member_count) < r.max_participants)),
  distribution_config: shown(
    obj({ min_interval_seconds: intSchema, claim_delay_seconds: intSchema, round_expiry_seconds: { ...intSchema, nullable: true } }),
    distributionConfig,
  ),
  next_distribution: shown(time, (r, c) => nextDistribution(r, c.now)),
});

export type PoolListItem = ReturnType<typeof POOL_LIST_ITEM.item>;
export type PoolDetail = ReturnType<typeof POOL_DETAIL.item>;

/** The learned token symbols a pool row carries, for TokenDirectory.withLearned. */
function learnedTokens(rows: readonly PoolRow[]): LearnedToken[] {
  const out: LearnedToken[] = [];
  for (const r of rows) {
    if (r.token_to_distribute && r.token_to_distribute_symbol !== null)
      out.push({ network_id: r.network_id, address: r.token_to_distribute, symbol: r.token_to_distribute_symbol });
    if (r.distribution_token && r.distribution_token_symbol !== null)
      out.push({ network_id: r.network_id, address: r.distribution_token, symbol: r.distribution_token_symbol });
  }
  return out;
}

export function toListItem(r: PoolRow, tokens?: TokenResolver): PoolListItem {
  return POOL_LIST_ITEM.item(r, { tokens });
}

export class PoolQueries {
  constructor(private readonly ctx: QueryContext) {}

  async list(q: PoolListQuery): Promise<Page<PoolListItem>> {
    const { rows, total } = await this.ctx.reader.poolPage({ search: q.search, networkId: q.networkId, accessType: q.accessType }, q.sort, sliceOf(q));
    const tokens = this.ctx.tokens.withLearned(learnedTokens(rows));
    return { items: rows.map((r) => toListItem(r, tokens)), page: q.page, limit: q.limit, total };
  }

  async row(address: string, networkId?: number): Promise<PoolRow> {
    const network = await resolvePoolNetwork(this.ctx, address, networkId);
    const row = await this.ctx.reader.poolRow(network, address);
    if (!row) throw new Error(`pool ${address} vanished between lookups`);
    return row;
  }

  async detail(address: string, networkId?: number): Promise<PoolDetail> {
    const r = await this.row(address, networkId);
    return POOL_DETAIL.item(r, { tokens: this.ctx.tokens.withLearned(learnedTokens([r])), now: this.ctx.now() });
  }
}

function distributionConfig(r: PoolRow): { min_interval_seconds: number; claim_delay_seconds: number; round_expiry_seconds: number | null } {
  if (r.pool_version === '1') {
    // V1 has no time gating: rounds are claimable at once and never expire (no expiry → null).
    return { min_interval_seconds: 0, claim_delay_seconds: 0, round_expiry_seconds: null };
  }
  return {
    min_interval_seconds: r.min_interval_seconds === null ? V2_DEFAULT_CONFIG.min_interval_seconds : Number(r.min_interval_seconds),
    claim_delay_seconds: r.claim_delay_seconds === null ? V2_DEFAULT_CONFIG.claim_delay_seconds : Number(r.claim_delay_seconds),
    round_expiry_seconds: r.round_expiry_seconds === null ? V2_DEFAULT_CONFIG.round_expiry_seconds : Number(r.round_expiry_seconds),
  };
}

/**
 * The next scheduled distribution of a V2 auto-schedule: the first slot of first + k × interval that is not yet
 * past and not yet used (the schedule ends after total_distributions; 0 = unlimited). Null without a schedule.
 */
export function nextDistribution(
  r: Pick<PoolRow, 'schedule_enabled' | 'schedule_first' | 'schedule_interval' | 'schedule_total' | 'distribution_count'>,
  now: Date,
): string | null {
  if (!r.schedule_enabled || r.schedule_first === null || r.schedule_interval === null) return null;
  const first = BigInt(r.schedule_first);
  const interval = BigInt(r.schedule_interval);
  const nowS = BigInt(Math.floor(now.getTime() / 1000));
  let k = 0n;
  if (nowS > first && interval > 0n) k = (nowS - first + interval - 1n) / interval;
  if (r.schedule_total && k >= BigInt(r.schedule_total)) return null;
  return iso(new Date(Number(first + k * interval) * 1000));
}
