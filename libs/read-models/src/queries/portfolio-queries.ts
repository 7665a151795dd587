import { AppError } from '@dob/domain';
import { formatAmount, percent } from '../money';
import { chainName } from '../networks';
import { MarketplaceQueries, type Listing, type ListingStatusFilter } from './marketplace-queries';
import { ROUND_STATUS_SQL } from './pool-activity-queries';
import { nextDistribution } from './pool-queries';
import { MEMBER_STATS, V, iso, int, offsetOf, type Page, type Paging, type QueryContext } from './query-context';
import { tokenLabel, type TokenLookup } from './token-directory';

/** Dob's documented holdings record (PORT §5), field for field. */
export interface Holding {
  pool_address: string;
  pool_name: string | null;
  pool_ticker: string | null;
  network_id: number;
  chain_name: string;
  shares: number;
  total_shares: number;
  participation_percent: number;
  distribution_token: string | null;
  total_earned: string;
  unclaimed_amount: string;
  unclaimed_rounds: number;
  estimated_apr: number | null;
  joined_at: string | null;
}

export interface Position extends Holding {
  active_listing: Listing | null;
  claimable_rounds: ClaimableRound[];
}

export interface ClaimableRound {
  pool_address: string;
  pool_name: string | null;
  network_id: number;
  round_id: number;
  token: string | null;
  estimated_amount: string;
  claimable_from: string | null;
  expires_at: string | null;
}

export interface UpcomingDistribution {
  pool_address: string;
  pool_name: string | null;
  network_id: number;
  /** null for a scheduled distribution whose round does not exist yet. */
  round_id: number | null;
  token: string | null;
  estimated_amount: string | null;
  claimable_from: string | null;
  expires_at: string | null;
  kind: 'pending_round' | 'scheduled';
}

export interface HistoryEntry {
  type: string;
  pool_address: string;
  pool_name: string | null;
  network_id: number;
  counterparty: string | null;
  shares: number | null;
  amount: string | null;
  token: string | null;
  transaction_hash: string;
  date: string | null;
}

interface HoldingRow {
  network_id: number;
  pool: string;
  shares: string;
  joined_at: Date | null;
  name: string | null;
  ticker: string | null;
  estimated_apr: string | null;
  token_to_distribute: string | null;
  distribution_token: string | null;
  total_shares: string;
  earned: string;
  v2_unclaimed: string;
  v2_unclaimed_rounds: number;
  v1_credited: string;
  v1_withdrawn: string;
}

/**
 * The key's wallet across pools. Earnings: V2 claims + V1 credited allocations. Unclaimed: for each V2 round that
 * is claimable now (completed status) and not claimed by the wallet, floor(total × balance / total_shares) — the
 * contract's own formula on a live-balance round (dob-contracts §3) — plus V1 allocations not yet withdrawn.
 */
export class PortfolioQueries {
  private readonly marketplace: MarketplaceQueries;

  constructor(private readonly ctx: QueryContext) {
    this.marketplace = new MarketplaceQueries(ctx);
  }

  private async holdingRows(wallet: string, networkId?: number, pool?: string): Promise<HoldingRow[]> {
    const status = ROUND_STATUS_SQL.replaceAll('$NOW', '$2::timestamptz');
    const params: unknown[] = [wallet, this.ctx.now().toISOString()];
    let filter = '';
    if (networkId !== undefined) {
      params.push(networkId);
      filter += ` AND h.network_id = $${params.length}`;
    }
    if (pool !== undefined) {
      params.push(pool);
      filter += ` AND h.pool = $${params.length}`;
    }
    const { rows } = await this.ctx.db.query<HoldingRow>(
      `SELECT h.network_id, h.pool, h.shares::text AS shares, h.joined_at, p.name, p.ticker,
              p.estimated_apr::text AS estimated_apr, p.token_to_distribute, p.distribution_token,
              COALESCE(m.total_shares, 0)::text AS total_shares,
              (SELECT COALESCE(SUM(c.amount), 0)::text FROM ${V.claims} c
                WHERE c.network_id = h.network_id AND c.pool = h.pool AND c.holder = h.holder) AS earned,
              (SELECT COALESCE(SUM(div(r.total_amount * h.shares, NULLIF(r.total_shares, 0))), 0)::text FROM ${V.rounds} r
                WHERE r.network_id = h.network_id AND r.pool = h.pool AND r.pool_version = '2' AND ${status} = 'completed'
                  AND NOT EXISTS (SELECT 1 FROM ${V.claims} c WHERE c.network_id = r.network_id AND c.pool = r.pool
                                   AND c.round_id = r.round_id AND c.holder = h.holder)) AS v2_unclaimed,
              (SELECT COUNT(*)::int FROM ${V.rounds} r
                WHERE r.network_id = h.network_id AND r.pool = h.pool AND r.pool_version = '2' AND ${status} = 'completed'
                  AND NOT EXISTS (SELECT 1 FROM ${V.claims} c WHERE c.network_id = r.network_id AND c.pool = r.pool
                                   AND c.round_id = r.round_id AND c.holder = h.holder)) AS v2_unclaimed_rounds,
              (SELECT COALESCE(SUM(c.amount), 0)::text FROM ${V.claims} c JOIN ${V.rounds} r
                  ON r.network_id = c.network_id AND r.pool = c.pool AND r.round_id = c.round_id AND r.pool_version = '1'
                WHERE c.network_id = h.network_id AND c.pool = h.pool AND c.holder = h.holder) AS v1_credited,
              (SELECT COALESCE(SUM(w.amount), 0)::text FROM ${V.withdrawals} w
                WHERE w.network_id = h.network_id AND w.pool = h.pool AND w.holder = h.holder) AS v1_withdrawn
         FROM ${V.members} h
         JOIN ${V.pools} p ON p.network_id = h.network_id AND p.address = h.pool
         LEFT JOIN (${MEMBER_STATS}) m ON m.network_id = h.network_id AND m.pool = h.pool
        WHERE h.holder = $1 AND h.shares > 0 ${filter}
        ORDER BY h.network_id, h.pool`,
      params,
    );
    return rows;
  }

  private toHolding(r: HoldingRow, tokens: TokenLookup): Holding {
    const t = tokens.get(r.network_id, r.distribution_token);
    const v1Open = BigInt(r.v1_credited) - BigInt(r.v1_withdrawn);
    const unclaimed = BigInt(r.v2_unclaimed) + (v1Open > 0n ? v1Open : 0n);
    return {
      pool_address: r.pool,
      pool_name: r.name,
      pool_ticker: r.ticker,
      network_id: r.network_id,
      chain_name: chainName(r.network_id),
      shares: int(r.shares),
      total_shares: int(r.total_shares),
      participation_percent: percent(BigInt(r.shares), BigInt(r.total_shares)),
      distribution_token: tokenLabel(tokens, r.network_id, r.token_to_distribute) ?? (r.distribution_token ? t.symbol : null),
      total_earned: formatAmount(r.earned, t.decimals),
      unclaimed_amount: formatAmount(unclaimed, t.decimals),
      unclaimed_rounds: r.v2_unclaimed_rounds,
      estimated_apr: r.estimated_apr === null ? null : Number(r.estimated_apr),
      joined_at: iso(r.joined_at),
    };
  }

  async holdings(wallet: string, networkId?: number): Promise<Holding[]> {
    const [rows, tokens] = await Promise.all([this.holdingRows(wallet, networkId), this.ctx.tokens.lookup()]);
    return rows.map((r) => this.toHolding(r, tokens));
  }

  async position(wallet: string, pool: string, networkId?: number): Promise<Position> {
    const [rows, tokens] = await Promise.all([this.holdingRows(wallet, networkId, pool), this.ctx.tokens.lookup()]);
    if (rows.length === 0) throw AppError.notFound(`No position of ${wallet} in pool ${pool}`);
    if (rows.length > 1) {
      throw AppError.validation(`network_id is required: positions in pool ${pool} exist on several networks`, {
        fields: { network_id: 'network_id is required for this address' },
      });
    }
    const r = rows[0]!;
    const own = await this.marketplace.listings({ page: 1, limit: 1, sort: 'created_desc', status: 'active', networkId: r.network_id, seller: wallet });
    const claimable = (await this.distributions(wallet, r.network_id)).claimable.filter((c) => c.pool_address === pool);
    return { ...this.toHolding(r, tokens), active_listing: own.items.find((l) => l.pool_address === pool) ?? null, claimable_rounds: claimable };
  }

  async listings(wallet: string, q: Paging & { networkId?: number; status: ListingStatusFilter }): Promise<Page<Listing>> {
    return this.marketplace.listings({ ...q, sort: 'created_desc', seller: wallet });
  }

  async distributions(wallet: string, networkId?: number): Promise<{ claimable: ClaimableRound[]; upcoming: UpcomingDistribution[] }> {
    const status = ROUND_STATUS_SQL.replaceAll('$NOW', '$2::timestamptz');
    const params: unknown[] = [wallet, this.ctx.now().toISOString()];
    const filter = networkId === undefined ? '' : (params.push(networkId), `AND h.network_id = $3`);
    const [rounds, pools, tokens] = await Promise.all([
      this.ctx.db.query<{ network_id: number; pool: string; name: string | null; round_id: string; token: string; estimate: string; claimable_from: Date; expires_at: Date | null; status: string }>(
        `SELECT r.network_id, r.pool, p.name, r.round_id, r.token, div(r.total_amount * h.shares, NULLIF(r.total_shares, 0))::text AS estimate,
                r.claimable_from, r.expires_at, ${status} AS status
           FROM ${V.members} h
           JOIN ${V.rounds} r ON r.network_id = h.network_id AND r.pool = h.pool AND r.pool_version = '2'
           LEFT JOIN ${V.pools} p ON p.network_id = r.network_id AND p.address = r.pool
          WHERE h.holder = $1 AND h.shares > 0 ${filter} AND ${status} IN ('completed', 'pending')
            AND NOT EXISTS (SELECT 1 FROM ${V.claims} c WHERE c.network_id = r.network_id AND c.pool = r.pool
                             AND c.round_id = r.round_id AND c.holder = h.holder)
          ORDER BY r.claimable_from, r.network_id, r.pool, r.round_id`,
        params,
      ),
      this.ctx.db.query<{ network_id: number; address: string; name: string | null; token_to_distribute: string | null; schedule_enabled: boolean; schedule_first: string | null; schedule_interval: string | null; schedule_total: number | null; distribution_count: number }>(
        `SELECT p.network_id, p.address, p.name, p.token_to_distribute, p.schedule_enabled, p.schedule_first, p.schedule_interval,
                p.schedule_total, p.distribution_count
           FROM ${V.members} h JOIN ${V.pools} p ON p.network_id = h.network_id AND p.address = h.pool
          WHERE h.holder = $1 AND h.shares > 0 AND p.schedule_enabled AND $2::timestamptz IS NOT NULL ${filter}
          ORDER BY p.network_id, p.address`,
        params,
      ),
      this.ctx.tokens.lookup(),
    ]);
    const claimable: ClaimableRound[] = [];
    const upcoming: UpcomingDistribution[] = [];
    for (const r of rounds.rows) {
      const t = tokens.get(r.network_id, r.token);
      const item = {
        pool_address: r.pool,
        pool_name: r.name,
        network_id: r.network_id,
        round_id: Number(r.round_id),
        token: t.symbol,
        estimated_amount: formatAmount(r.estimate ?? '0', t.decimals),
        claimable_from: iso(r.claimable_from),
        expires_at: iso(r.expires_at),
      };
      if (r.status === 'completed') claimable.push(item);
      else upcoming.push({ ...item, kind: 'pending_round' });
    }
    const now = this.ctx.now();
    for (const p of pools.rows) {
      const at = nextDistribution(p, now);
      if (at) upcoming.push({ pool_address: p.address, pool_name: p.name, network_id: p.network_id, round_id: null, token: tokenLabel(tokens, p.network_id, p.token_to_distribute), estimated_amount: null, claimable_from: at, expires_at: null, kind: 'scheduled' });
    }
    upcoming.sort((a, b) => (a.claimable_from ?? '').localeCompare(b.claimable_from ?? '') || a.pool_address.localeCompare(b.pool_address) || (a.round_id ?? -1) - (b.round_id ?? -1));
    return { claimable, upcoming };
  }

  async history(wallet: string, q: Paging & { networkId?: number; type?: string }): Promise<Page<HistoryEntry>> {
    const params: unknown[] = [wallet];
    let filter = '';
    if (q.networkId !== undefined) {
      params.push(q.networkId);
      filter += ` AND e.network_id = $${params.length}`;
    }
    if (q.type) {
      params.push(q.type);
      filter += ` AND e.type = $${params.length}`;
    }
    const [rows, count, tokens] = await Promise.all([
      this.ctx.db.query<{ type: string; pool: string; network_id: number; counterparty: string | null; shares: string | null; amount: string | null; token: string | null; tx_hash: string; occurred_at: Date; name: string | null }>(
        `SELECT e.*, p.name FROM ${V.history} e LEFT JOIN ${V.pools} p ON p.network_id = e.network_id AND p.address = e.pool
          WHERE e.wallet = $1 ${filter}
          ORDER BY e.occurred_at DESC, e.chain_event_id DESC, e.event_id, e.side LIMIT ${q.limit} OFFSET ${offsetOf(q)}`,
        params,
      ),
      this.ctx.db.query<{ n: number }>(`SELECT COUNT(*)::int AS n FROM ${V.history} e WHERE e.wallet = $1 ${filter}`, params),
      this.ctx.tokens.lookup(),
    ]);
    const campaignTokens = await this.campaignTokens();
    return {
      items: rows.rows.map((r) => {
        const tokenAddress = r.token ?? campaignTokens.get(`${r.network_id}/${r.pool}`) ?? null;
        const t = tokens.get(r.network_id, tokenAddress);
        return {
          type: r.type,
          pool_address: r.pool,
          pool_name: r.name,
          network_id: r.network_id,
          counterparty: r.counterparty,
          shares: r.shares === null ? null : int(r.shares),
          amount: r.amount === null ? null : formatAmount(r.amount, t.decimals),
          token: t.symbol,
          transaction_hash: r.tx_hash,
          date: iso(r.occurred_at),
        };
      }),
      page: q.page,
      limit: q.limit,
      total: count.rows[0]!.n,
    };
  }

  /** Contributions carry no token on the event: it is the campaign's payment token. */
  private async campaignTokens(): Promise<Map<string, string>> {
    const { rows } = await this.ctx.db.query<{ network_id: number; address: string; payment_token: string }>(
      `SELECT network_id, address, payment_token FROM ${V.campaigns}`,
    );
    return new Map(rows.map((r) => [`${r.network_id}/${r.address}`, r.payment_token]));
  }
}
