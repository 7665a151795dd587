import { formatAmount } from '@dob/domain';
import { chainName } from '../networks';
import { resolvePoolNetwork } from './pool-resolution';
import { iso, int, sliceOf, type Page, type Paging, type QueryContext } from './query-context';
import { POOL_SORTS, type LearnedToken, type PoolRow, type PoolSort } from './read-model-reader.port';
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

export interface PoolListItem {
  address: string;
  name: string | null;
  ticker: string | null;
  network_id: number;
  chain_name: string;
  access_type: string | null;
  distribution_type: string | null;
  estimated_apr: number | null;
  member_count: number;
  max_participants: number | null;
  token_to_distribute: string | null;
  pool_data: Record<string, unknown>;
  created_at: string | null;
}

export interface PoolDetail extends PoolListItem {
  creator_address: string | null;
  total_distributed: string;
  total_shares: number;
  allow_entry: boolean;
  distribution_config: { min_interval_seconds: number | null; claim_delay_seconds: number | null; round_expiry_seconds: number | null };
  next_distribution: string | null;
}

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
  return {
    address: r.address,
    name: r.name,
    ticker: r.ticker,
    network_id: r.network_id,
    chain_name: chainName(r.network_id),
    access_type: r.access_type,
    distribution_type: r.distribution_type,
    estimated_apr: r.estimated_apr === null ? null : Number(r.estimated_apr),
    member_count: int(r.member_count),
    max_participants: r.max_participants,
    token_to_distribute: tokens ? tokenLabel(tokens, r.network_id, r.token_to_distribute) : r.token_to_distribute,
    pool_data: {
      name: r.name,
      ticker: r.ticker,
      max_participants: r.max_participants,
      access: r.access_type,
      distribution_type: r.distribution_type,
      estimated_apr: r.estimated_apr,
    },
    created_at: iso(r.created_at),
  };
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
    const tokens = this.ctx.tokens.withLearned(learnedTokens([r]));
    const item = toListItem(r, tokens);
    const decimals = tokens.get(r.network_id, r.distribution_token).decimals;
    const memberCount = int(r.member_count);
    return {
      ...item,
      pool_data: {
        ...item.pool_data,
        way_to_access: r.access_type ? (WAY_TO_ACCESS[r.access_type] ?? r.access_type) : null,
        token_to_distribute: item.token_to_distribute,
      },
      creator_address: r.creator_address,
      total_distributed: formatAmount(r.total_distributed, decimals),
      total_shares: int(r.total_shares),
      // Open to newcomers while the cap table can still change and the participant cap (if any) is not reached.
      // A pool initialised with mutable = false is as locked as one that called lock_contract (same contract state).
      allow_entry: !r.locked && r.mutable !== false && (r.max_participants === null || memberCount < r.max_participants),
      distribution_config: distributionConfig(r),
      next_distribution: nextDistribution(r, this.ctx.now()),
    };
  }
}

function distributionConfig(r: PoolRow): PoolDetail['distribution_config'] {
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
