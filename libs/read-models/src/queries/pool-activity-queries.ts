import { formatAmount, perShare, percent } from '../money';
import type { PoolEventType } from '../projections/pool-events.projection';
import { resolvePoolNetwork } from './pool-resolution';
import { V, iso, int, offsetOf, type Page, type Paging, type QueryContext } from './query-context';
import type { TokenLookup } from './token-directory';

export const ROUND_STATUSES = ['completed', 'pending', 'expired'] as const;
export type RoundStatus = (typeof ROUND_STATUSES)[number];

/**
 * Round status is a function of the clock (brief): pending before claimable_from, completed from then until
 * expires_at, expired after it (the contract refuses claims with RoundExpired once now > expires_at and allows
 * reclaim only then). V1 rounds have no expiry.
 */
export const ROUND_STATUS_SQL = `CASE WHEN r.claimable_from > $NOW THEN 'pending'
  WHEN r.expires_at IS NOT NULL AND r.expires_at < $NOW THEN 'expired' ELSE 'completed' END`;

export interface PoolMember {
  user_address: string;
  shares: number;
  participation_percent: number;
  joined_at: string | null;
}

export interface DistributionRound {
  round_id: number;
  token: string | null;
  total_amount: string;
  total_shares: number;
  amount_per_share: string;
  total_claimed: string;
  claim_count: number;
  status: RoundStatus;
  created_at: string | null;
  claimable_from: string | null;
  expires_at: string | null;
}

export interface PoolEvent {
  event_type: PoolEventType;
  pool_id: string;
  transaction_hash: string;
  from_address: string | null;
  to_address?: string;
  amount: string | null;
  token?: string;
  date: string | null;
  description: string;
}

export interface PoolScoped extends Paging {
  readonly address: string;
  readonly networkId?: number;
}

export class PoolActivityQueries {
  constructor(private readonly ctx: QueryContext) {}

  async members(q: PoolScoped): Promise<Page<PoolMember>> {
    const network = await resolvePoolNetwork(this.ctx, q.address, q.networkId);
    const { rows } = await this.ctx.db.query<{ holder: string; shares: string; joined_at: Date | null; total: string; n: number }>(
      `SELECT m.holder, m.shares::text AS shares, m.joined_at, SUM(m.shares) OVER ()::text AS total, COUNT(*) OVER ()::int AS n
         FROM ${V.members} m WHERE m.network_id = $1 AND m.pool = $2 AND m.shares > 0
        ORDER BY m.shares DESC, m.holder ASC LIMIT ${q.limit} OFFSET ${offsetOf(q)}`,
      [network, q.address],
    );
    const total = rows[0] ? { supply: BigInt(rows[0].total), count: rows[0].n } : await this.memberTotals(network, q.address);
    return {
      items: rows.map((r) => ({
        user_address: r.holder,
        shares: int(r.shares),
        participation_percent: percent(BigInt(r.shares), total.supply),
        joined_at: iso(r.joined_at),
      })),
      page: q.page,
      limit: q.limit,
      total: total.count,
    };
  }

  private async memberTotals(network: number, pool: string): Promise<{ supply: bigint; count: number }> {
    const { rows } = await this.ctx.db.query<{ n: number }>(
      `SELECT COUNT(*)::int AS n FROM ${V.members} WHERE network_id = $1 AND pool = $2 AND shares > 0`,
      [network, pool],
    );
    return { supply: 0n, count: rows[0]!.n };
  }

  async distributions(q: PoolScoped & { status?: RoundStatus }): Promise<Page<DistributionRound>> {
    const network = await resolvePoolNetwork(this.ctx, q.address, q.networkId);
    const status = ROUND_STATUS_SQL.replaceAll('$NOW', '$3::timestamptz');
    const filter = q.status ? `AND ${status} = $4` : '';
    const params = [network, q.address, this.ctx.now().toISOString(), ...(q.status ? [q.status] : [])];
    const [rows, count, tokens] = await Promise.all([
      this.ctx.db.query<RoundRow>(
        `SELECT r.*, r.total_amount::text AS total_amount, r.total_shares::text AS total_shares,
                r.total_claimed::text AS total_claimed, ${status} AS status
           FROM ${V.rounds} r WHERE r.network_id = $1 AND r.pool = $2 ${filter}
          ORDER BY r.created_at DESC, r.round_id DESC LIMIT ${q.limit} OFFSET ${offsetOf(q)}`,
        params,
      ),
      this.ctx.db.query<{ n: number }>(`SELECT COUNT(*)::int AS n FROM ${V.rounds} r WHERE r.network_id = $1 AND r.pool = $2 AND $3::timestamptz IS NOT NULL ${filter}`, params),
      this.ctx.tokens.lookup(),
    ]);
    return { items: rows.rows.map((r) => toRound(r, tokens)), page: q.page, limit: q.limit, total: count.rows[0]!.n };
  }

  async events(q: PoolScoped & { eventType?: PoolEventType }): Promise<Page<PoolEvent>> {
    const network = await resolvePoolNetwork(this.ctx, q.address, q.networkId);
    const filter = q.eventType ? 'AND event_type = $3' : '';
    const params = [network, q.address, ...(q.eventType ? [q.eventType] : [])];
    const [rows, count, tokens] = await Promise.all([
      this.ctx.db.query<EventRow>(
        `SELECT * FROM ${V.events} WHERE network_id = $1 AND pool = $2 ${filter}
          ORDER BY date DESC, chain_event_id DESC, event_id DESC LIMIT ${q.limit} OFFSET ${offsetOf(q)}`,
        params,
      ),
      this.ctx.db.query<{ n: number }>(`SELECT COUNT(*)::int AS n FROM ${V.events} WHERE network_id = $1 AND pool = $2 ${filter}`, params),
      this.ctx.tokens.lookup(),
    ]);
    return { items: rows.rows.map((r) => toEvent(r, tokens)), page: q.page, limit: q.limit, total: count.rows[0]!.n };
  }
}

export interface RoundRow {
  network_id: number;
  pool: string;
  round_id: string;
  token: string;
  total_amount: string;
  total_shares: string;
  total_claimed: string;
  claim_count: number;
  created_at: Date;
  claimable_from: Date;
  expires_at: Date | null;
  status: RoundStatus;
}

export function toRound(r: RoundRow, tokens: TokenLookup): DistributionRound {
  const t = tokens.get(r.network_id, r.token);
  return {
    round_id: Number(r.round_id),
    token: t.symbol,
    total_amount: formatAmount(r.total_amount, t.decimals),
    total_shares: int(r.total_shares),
    amount_per_share: formatAmount(perShare(BigInt(r.total_amount), BigInt(r.total_shares)), t.decimals),
    total_claimed: formatAmount(r.total_claimed, t.decimals),
    claim_count: r.claim_count,
    status: r.status,
    created_at: iso(r.created_at),
    claimable_from: iso(r.claimable_from),
    expires_at: iso(r.expires_at),
  };
}

interface EventRow {
  network_id: number;
  pool: string;
  event_type: PoolEventType;
  transaction_hash: string;
  from_address: string | null;
  to_address: string | null;
  amount: string | null;
  amount_kind: 'token' | 'shares' | null;
  token: string | null;
  detail: string | null;
  date: Date;
}

function toEvent(r: EventRow, tokens: TokenLookup): PoolEvent {
  const t = tokens.get(r.network_id, r.token);
  const amount = r.amount === null ? null : r.amount_kind === 'token' ? formatAmount(r.amount, t.decimals) : r.amount;
  const out: PoolEvent = {
    event_type: r.event_type,
    pool_id: r.pool,
    transaction_hash: r.transaction_hash,
    from_address: r.from_address,
    amount,
    date: iso(r.date),
    description: describe(r, amount, t.symbol),
  };
  if (r.to_address) out.to_address = r.to_address;
  if (r.token) out.token = t.symbol ?? r.token;
  return out;
}

function describe(r: EventRow, amount: string | null, symbol: string | null): string {
  const money = `${amount} ${symbol ?? ''}`.trim();
  switch (r.event_type) {
    case 'init':
      return `Pool initialized (splitter ${r.detail ?? ''}) by ${r.from_address}`.replace('  ', ' ');
    case 'distribute':
      return r.detail === null ? `Distributed ${money} to shareholders` : `Created distribution round ${r.detail} of ${money}`;
    case 'claim':
      return `${r.from_address} claimed ${money} from round ${r.detail}`;
    case 'withdraw':
      return r.detail === 'admin' ? `Admin withdrew ${money} to ${r.to_address}` : `${r.from_address} withdrew ${money}`;
    case 'transfer_shares': {
      const how = r.detail === 'marketplace_sale' ? ' (marketplace sale)' : r.detail === 'crowdfunding_allocation' ? ' (crowdfunding allocation)' : '';
      return `${r.from_address} transferred ${amount} shares to ${r.to_address}${how}`;
    }
    case 'lock':
      return 'Share table locked: shares can no longer be updated';
    case 'set_admin':
      return `Admin changed from ${r.from_address} to ${r.to_address}`;
  }
}
