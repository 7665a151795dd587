import { formatAmount, percent } from '@dob/domain';
import { iso, type QueryContext } from './query-context';
import type { CampaignRow } from './read-model-reader.port';

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

/**
 * raised / target compared exactly (cross-multiplied; targets are positive), a zero target (no progress) last.
 * Rows arrive in (network_id, address) order and the sort is stable, which breaks ties the same way everywhere.
 */
const byProgressDesc = (a: CampaignRow, b: CampaignRow): number => {
  const [ta, tb] = [BigInt(a.target), BigInt(b.target)];
  if (ta <= 0n || tb <= 0n) return (ta <= 0n ? 1 : 0) - (tb <= 0n ? 1 : 0);
  const [x, y] = [BigInt(a.raised) * tb, BigInt(b.raised) * ta];
  return x === y ? 0 : x > y ? -1 : 1;
};

const ORDER: Record<CrowdfundingSort, (a: CampaignRow, b: CampaignRow) => number> = {
  deadline_asc: (a, b) => a.deadline.getTime() - b.deadline.getTime(),
  deadline_desc: (a, b) => b.deadline.getTime() - a.deadline.getTime(),
  progress_desc: byProgressDesc,
};

/**
 * Campaigns (the crowdfunding contract is the campaign's pool_address, docs/decisions.md#d10). target = soft cap shares × price;
 * raised = the contract's total raised. Name and ticker come from the registry entry of the campaign contract, or
 * of the splitter it activated.
 */
export class CrowdfundingQueries {
  constructor(private readonly ctx: QueryContext) {}

  async list(q: { networkId?: number; sort: CrowdfundingSort; status: 'active' | 'all' }): Promise<CrowdfundingPool[]> {
    const [rows, tokens] = await Promise.all([
      this.ctx.reader.campaigns(this.ctx.now(), { networkId: q.networkId, status: q.status }),
      this.ctx.tokens.lookup(),
    ]);
    return [...rows].sort(ORDER[q.sort]).map((r) => {
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
