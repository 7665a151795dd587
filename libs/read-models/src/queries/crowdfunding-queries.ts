import { formatAmount, percent } from '@dob/domain';
import { CAMPAIGN_FIELDS } from '../projections/campaigns.projection';
import { ApiView, computed, shownFields } from './api-view';
import { iso, type QueryContext } from './query-context';
import type { CampaignRow } from './read-model-reader.port';
import { bool, int as intSchema, money, nstr, num, time, type JsonSchema } from './response-schemas';
import type { TokenLookup } from './token-directory';

export const CROWDFUNDING_SORTS = ['deadline_asc', 'deadline_desc', 'progress_desc'] as const;
export type CrowdfundingSort = (typeof CROWDFUNDING_SORTS)[number];
/** `active` (default: Dob's "Active Crowdfunding" list) or `all` campaigns. */
export const CROWDFUNDING_STATUSES = ['active', 'all'] as const;

interface CampaignContext {
  readonly tokens: TokenLookup;
}
const campaign = shownFields(CAMPAIGN_FIELDS);
const shown = <V>(schema: JsonSchema, value: (r: CampaignRow, c: CampaignContext) => V) => computed(schema, value);
/** soft cap shares × price (base units). */
const target = (r: CampaignRow): bigint => BigInt(r.soft_cap_shares) * BigInt(r.price_per_share);
const inPaymentToken = (amount: (r: CampaignRow) => bigint | string) =>
  shown(money, (r, c) => formatAmount(amount(r), c.tokens.get(r.network_id, r.payment_token).decimals));

/** A campaign as the crowdfunding list shows it, in the order the API sends it. */
export const CROWDFUNDING_POOL = new ApiView({
  address: campaign.plain('address'),
  name: shown(nstr, (r) => r.name),
  ticker: shown(nstr, (r) => r.ticker),
  network_id: campaign.plain('network_id'),
  target_amount: inPaymentToken(target),
  raised_amount: inPaymentToken((r) => r.total_raised),
  progress_percent: shown(num, (r) => Math.round(percent(BigInt(r.total_raised), target(r)) * 100) / 100),
  contributor_count: shown(intSchema, (r) => r.contributors),
  deadline: shown(time, (r) => iso(r.deadline)),
  payment_token: shown(nstr, (r, c) => c.tokens.get(r.network_id, r.payment_token).symbol),
  is_active: shown(bool, (r) => r.active),
});
export type CrowdfundingPool = ReturnType<typeof CROWDFUNDING_POOL.item>;

/**
 * raised / target compared exactly (cross-multiplied; targets are positive), a zero target (no progress) last.
 * Rows arrive in (network_id, address) order and the sort is stable, which breaks ties the same way everywhere.
 */
const byProgressDesc = (a: CampaignRow, b: CampaignRow): number => {
  const [ta, tb] = [target(a), target(b)];
  if (ta <= 0n || tb <= 0n) return (ta <= 0n ? 1 : 0) - (tb <= 0n ? 1 : 0);
  const [x, y] = [BigInt(a.total_raised) * tb, BigInt(b.total_raised) * ta];
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
    return [...rows].sort(ORDER[q.sort]).map((r) => CROWDFUNDING_POOL.item(r, { tokens }));
  }
}
