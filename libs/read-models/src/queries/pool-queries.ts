import { formatAmount } from '../money';
import { chainName } from '../networks';
import { resolvePoolNetwork } from './pool-resolution';
import { MEMBER_STATS, V, iso, int, offsetOf, type Page, type Paging, type QueryContext } from './query-context';
import { joinLearnedToken, tokenLabel, type LearnedToken, type TokenResolver } from './token-directory';

export const POOL_SORTS = ['created_desc', 'created_asc', 'apr_desc', 'apr_asc', 'members_desc', 'members_asc'] as const;
export type PoolSort = (typeof POOL_SORTS)[number];
export const ACCESS_TYPES = ['rtj', 'p', 'qr', 'stk'] as const;

/** Spec "Access types": what each code means, shown as pool_data.way_to_access. */
const WAY_TO_ACCESS: Record<string, string> = {
  rtj: 'Users request to join; an admin approves and airdrops shares',
  p: 'Users buy shares directly (marketplace or crowdfunding)',
  qr: 'Users join by scanning a QR code',
  stk: 'Users stake tokens to receive shares',
};

/** Defaults of get_distribution_config on V2 (dob-contracts §3): 12 h interval, no delay, 365-day expiry. */
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

export interface PoolRow {
  network_id: number;
  address: string;
  name: string | null;
  ticker: string | null;
  access_type: string | null;
  distribution_type: string | null;
  estimated_apr: string | null;
  max_participants: number | null;
  token_to_distribute: string | null;
  created_at: Date | null;
  member_count: number | null;
  total_shares: string | null;
  pool_version: string | null;
  creator_address: string | null;
  locked: boolean;
  mutable: boolean | null;
  min_interval_seconds: string | null;
  claim_delay_seconds: string | null;
  round_expiry_seconds: string | null;
  schedule_enabled: boolean;
  schedule_first: string | null;
  schedule_interval: string | null;
  schedule_total: number | null;
  distribution_count: number;
  total_distributed: string;
  last_distribution_at: Date | null;
  distribution_token: string | null;
  /** Symbols the tokens read model learned for token_to_distribute and distribution_token (null if none). */
  token_to_distribute_symbol: string | null;
  distribution_token_symbol: string | null;
}

const POOL_COLUMNS = `p.network_id, p.address, p.name, p.ticker, p.access_type, p.distribution_type,
       p.estimated_apr::text AS estimated_apr, p.max_participants, p.token_to_distribute, p.created_at,
       COALESCE(m.member_count, 0) AS member_count, COALESCE(m.total_shares, 0)::text AS total_shares, p.pool_version,
       p.creator_address, p.locked, p.mutable, p.min_interval_seconds, p.claim_delay_seconds, p.round_expiry_seconds,
       p.schedule_enabled, p.schedule_first, p.schedule_interval, p.schedule_total, p.distribution_count,
       p.total_distributed::text AS total_distributed, p.last_distribution_at, p.distribution_token,
       ttd.symbol AS token_to_distribute_symbol, dt.symbol AS distribution_token_symbol`;

/** A listed pool is registered or initialised (the pools model also keeps rows for events of unknown pools). */
const LISTED = 'p.listed';

// Member stats and token symbols are single-row lookups by primary key (no aggregate, no second query).
const FROM_POOLS = `${V.pools} p
  LEFT JOIN (${MEMBER_STATS}) m ON m.network_id = p.network_id AND m.pool = p.address
  ${joinLearnedToken('ttd', 'p.network_id', 'p.token_to_distribute')}
  ${joinLearnedToken('dt', 'p.network_id', 'p.distribution_token')}`;

const SELECT_POOLS = `SELECT ${POOL_COLUMNS} FROM ${FROM_POOLS} WHERE ${LISTED}`;

/** The learned token symbols a pool row carries, for TokenDirectory.withLearned. */
function learnedTokens(rows: readonly PoolRow[]): LearnedToken[] {
  const out: LearnedToken[] = [];
  for (const r of rows) {
    if (r.token_to_distribute && r.token_to_distribute_symbol !== null) out.push({ network_id: r.network_id, address: r.token_to_distribute, symbol: r.token_to_distribute_symbol });
    if (r.distribution_token && r.distribution_token_symbol !== null) out.push({ network_id: r.network_id, address: r.distribution_token, symbol: r.distribution_token_symbol });
  }
  return out;
}

// Every order ends on (network_id, address): equal keys never reorder between requests or rebuilds.
const ORDER: Record<PoolSort, string> = {
  created_desc: 'p.created_at DESC NULLS LAST',
  created_asc: 'p.created_at ASC NULLS LAST',
  apr_desc: 'p.estimated_apr DESC NULLS LAST',
  apr_asc: 'p.estimated_apr ASC NULLS LAST',
  members_desc: 'member_count DESC',
  members_asc: 'member_count ASC',
};

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
    const where: string[] = [];
    const params: unknown[] = [];
    const add = (sql: string, v: unknown) => {
      params.push(v);
      where.push(sql.replaceAll('?', `$${params.length}`));
    };
    if (q.search) add(`(p.name ILIKE ? OR p.ticker ILIKE ?)`, `%${q.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
    if (q.networkId !== undefined) add('p.network_id = ?', q.networkId);
    if (q.accessType) add('p.access_type = ?', q.accessType);
    const filter = where.length ? ` AND ${where.join(' AND ')}` : '';
    // One statement: the page and, as an uncorrelated scalar subquery (evaluated once), the filtered total. The
    // count needs no member stats: filters only touch the pools table.
    const total = `(SELECT COUNT(*)::int FROM ${V.pools} p WHERE ${LISTED}${filter}) AS total_count`;
    const { rows } = await this.ctx.db.query<PoolRow & { total_count: number }>(
      `SELECT ${POOL_COLUMNS}, ${total} FROM ${FROM_POOLS} WHERE ${LISTED}${filter}
        ORDER BY ${ORDER[q.sort]}, p.network_id, p.address LIMIT ${q.limit} OFFSET ${offsetOf(q)}`,
      params,
    );
    // A page past the end has no row to carry the total (page 1 empty means none match).
    const count = rows[0]?.total_count ?? (offsetOf(q) === 0 ? 0 : await this.count(filter, params));
    const tokens = this.ctx.tokens.withLearned(learnedTokens(rows));
    return { items: rows.map((r) => toListItem(r, tokens)), page: q.page, limit: q.limit, total: count };
  }

  private async count(filter: string, params: unknown[]): Promise<number> {
    const { rows } = await this.ctx.db.query<{ n: number }>(`SELECT COUNT(*)::int AS n FROM ${V.pools} p WHERE ${LISTED}${filter}`, params);
    return rows[0]!.n;
  }

  async row(address: string, networkId?: number): Promise<PoolRow> {
    const network = await resolvePoolNetwork(this.ctx, address, networkId);
    const { rows } = await this.ctx.db.query<PoolRow>(`${SELECT_POOLS} AND p.network_id = $1 AND p.address = $2`, [network, address]);
    if (!rows[0]) throw new Error(`pool ${address} vanished between lookups`);
    return rows[0];
  }

  async detail(address: string, networkId?: number): Promise<PoolDetail> {
    const r = await this.row(address, networkId);
    const tokens = this.ctx.tokens.withLearned(learnedTokens([r]));
    const item = toListItem(r, tokens);
    const decimals = tokens.get(r.network_id, r.distribution_token).decimals;
    const memberCount = int(r.member_count);
    return {
      ...item,
      pool_data: { ...item.pool_data, way_to_access: r.access_type ? (WAY_TO_ACCESS[r.access_type] ?? r.access_type) : null, token_to_distribute: item.token_to_distribute },
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
export function nextDistribution(r: Pick<PoolRow, 'schedule_enabled' | 'schedule_first' | 'schedule_interval' | 'schedule_total' | 'distribution_count'>, now: Date): string | null {
  if (!r.schedule_enabled || r.schedule_first === null || r.schedule_interval === null) return null;
  const first = BigInt(r.schedule_first);
  const interval = BigInt(r.schedule_interval);
  const nowS = BigInt(Math.floor(now.getTime() / 1000));
  let k = 0n;
  if (nowS > first && interval > 0n) k = (nowS - first + interval - 1n) / interval;
  if (r.schedule_total && k >= BigInt(r.schedule_total)) return null;
  return iso(new Date(Number(first + k * interval) * 1000));
}

