import { formatAmount, percent } from '../money';
import { V, iso, type QueryContext } from './query-context';

export const CROWDFUNDING_SORTS = ['deadline_asc', 'deadline_desc', 'progress_desc'] as const;
export type CrowdfundingSort = (typeof CROWDFUNDING_SORTS)[number];
/** `active` (default: Dob's "Active Crowdfunding" list) or `all` campaigns. */
export const CROWDFUNDING_STATUSES = ['active', 'all'] as const;

export interface CrowdfundingPool {
  address: string;
  name: string | null;
  ticker: string | null;
  network_id: number;
  target_amount: string;
  raised_amount: string;
  progress_percent: number;
  contributor_count: number;
  deadline: string | null;
  payment_token: string | null;
  is_active: boolean;
}

// Active = still fundraising and the deadline not passed, judged against the query's clock.
const ACTIVE = `(c.status = 'fundraising' AND c.deadline > $1::timestamptz)`;
const TARGET = '(c.soft_cap_shares * c.price_per_share)';
const ORDER: Record<CrowdfundingSort, string> = {
  deadline_asc: 'c.deadline ASC',
  deadline_desc: 'c.deadline DESC',
  progress_desc: `(c.total_raised / NULLIF(${TARGET}, 0)) DESC NULLS LAST`,
};

/**
 * Campaigns (the crowdfunding contract is the campaign's pool_address, brief). target = soft cap shares × price;
 * raised = the contract's total raised. Name and ticker come from the registry entry of the campaign contract, or
 * of the splitter it activated.
 */
export class CrowdfundingQueries {
  constructor(private readonly ctx: QueryContext) {}

  async list(q: { networkId?: number; sort: CrowdfundingSort; status: 'active' | 'all' }): Promise<CrowdfundingPool[]> {
    const params: unknown[] = [this.ctx.now().toISOString()];
    const where: string[] = [];
    if (q.status === 'active') where.push(ACTIVE);
    if (q.networkId !== undefined) {
      params.push(q.networkId);
      where.push(`c.network_id = $${params.length}`);
    }
    const tokens = await this.ctx.tokens.lookup();
    const { rows } = await this.ctx.db.query<{
      network_id: number; address: string; name: string | null; ticker: string | null; target: string; raised: string;
      contributors: number; deadline: Date; payment_token: string; active: boolean;
    }>(
      `SELECT c.network_id, c.address, COALESCE(pc.name, ps.name) AS name, COALESCE(pc.ticker, ps.ticker) AS ticker,
              ${TARGET}::text AS target, c.total_raised::text AS raised, c.deadline, c.payment_token, ${ACTIVE} AS active,
              (SELECT COUNT(*)::int FROM ${V.contributors} x WHERE x.network_id = c.network_id AND x.campaign = c.address AND x.shares > 0) AS contributors
         FROM ${V.campaigns} c
         LEFT JOIN ${V.pools} pc ON pc.network_id = c.network_id AND pc.address = c.address
         LEFT JOIN ${V.pools} ps ON ps.network_id = c.network_id AND ps.address = c.splitter
        ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
        ORDER BY ${ORDER[q.sort]}, c.network_id, c.address`,
      params,
    );
    return rows.map((r) => {
      const t = tokens.get(r.network_id, r.payment_token);
      return {
        address: r.address,
        name: r.name,
        ticker: r.ticker,
        network_id: r.network_id,
        target_amount: formatAmount(r.target, t.decimals),
        raised_amount: formatAmount(r.raised, t.decimals),
        progress_percent: Math.round(percent(BigInt(r.raised), BigInt(r.target)) * 100) / 100,
        contributor_count: r.contributors,
        deadline: iso(r.deadline),
        payment_token: t.symbol,
        is_active: r.active,
      };
    });
  }
}
