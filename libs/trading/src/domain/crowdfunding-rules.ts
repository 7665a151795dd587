import { AppError, formatAmount } from '@dob/domain';

/** get_config of a crowdfunding contract (docs/contracts.md §4.5), amounts in payment-token base units. */
export interface CampaignConfig {
  readonly paymentToken: string;
  readonly pricePerShare: bigint;
  readonly softCapShares: bigint;
  readonly hardCapShares: bigint;
  /** Unix seconds. */
  readonly deadline: bigint;
  /** 0 Fundraising, 1 Succeeded, 2 Failed, 3 Activated. */
  readonly status: number;
  readonly totalSharesSold: bigint;
}

export const CAMPAIGN_STATUS = { fundraising: 0, succeeded: 1, failed: 2, activated: 3 } as const;

/** target_amount = soft cap shares × price (docs/decisions.md#d10). */
export const targetOf = (c: CampaignConfig): bigint => c.softCapShares * c.pricePerShare;

export interface ContributionPlan {
  readonly shares: bigint;
  /** shares × price: what the contract transfers from the investor. */
  readonly payment: bigint;
  readonly target: bigint;
}

/**
 * The crowdfunding validation failures of docs/agent-api.md#errors, in its order (all VALIDATION_ERROR): deadline passed, amount ≤ 0,
 * amount above the remaining target (stating the maximum), balance too low. "Not a crowdfunding pool" is decided
 * by the pool lookup before this. The contract takes a share count: shares = floor(amount / price) (docs/decisions.md#d10).
 */
export function planContribution(
  c: CampaignConfig,
  input: { amount: bigint; raised: bigint; balance: bigint; nowSeconds: bigint; decimals: number; symbol: string },
): ContributionPlan {
  const money = (v: bigint) => `${formatAmount(v, input.decimals)} ${input.symbol}`;
  if (c.status !== CAMPAIGN_STATUS.fundraising || input.nowSeconds >= c.deadline) {
    throw AppError.validation('Crowdfunding campaign deadline has passed', { deadline: new Date(Number(c.deadline) * 1000).toISOString() });
  }
  if (input.amount <= 0n) throw AppError.validation('Contribution amount must be greater than zero', { fields: { amount: 'must be greater than zero' } });
  const target = targetOf(c);
  const remaining = target > input.raised ? target - input.raised : 0n;
  if (input.amount > remaining) {
    throw AppError.validation(`Amount exceeds remaining target. Maximum contribution: ${money(remaining)}`, {
      fields: { amount: `at most ${formatAmount(remaining, input.decimals)}` },
      max_contribution: formatAmount(remaining, input.decimals),
    });
  }
  const shares = input.amount / c.pricePerShare;
  if (shares <= 0n) {
    throw AppError.validation(`Contribution amount must cover at least one share (price per share: ${money(c.pricePerShare)})`, {
      fields: { amount: 'below the price of one share' },
    });
  }
  const payment = shares * c.pricePerShare;
  if (input.balance < payment) {
    throw AppError.validation('Insufficient balance of the payment token', {
      required: formatAmount(payment, input.decimals),
      balance: formatAmount(input.balance, input.decimals),
    });
  }
  return { shares, payment, target };
}

/** refund(investor) works only on a Failed campaign and for a wallet that contributed (CampaignNotFailed / NothingToRefund). */
export function checkReclaim(c: CampaignConfig, contributionShares: bigint, nowSeconds: bigint): void {
  if (c.status !== CAMPAIGN_STATUS.failed) {
    const pendingFinalize = c.status === CAMPAIGN_STATUS.fundraising && nowSeconds >= c.deadline;
    throw AppError.validation(
      pendingFinalize
        ? 'Campaign deadline has passed but the campaign is not finalized yet; funds can be reclaimed once it is finalized as failed'
        : 'Campaign has not failed: funds can only be reclaimed from a failed campaign',
    );
  }
  if (contributionShares <= 0n) throw AppError.validation('Nothing to reclaim: this wallet has no contribution in the campaign');
}
