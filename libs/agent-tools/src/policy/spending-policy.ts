import { formatDecimal, parseDecimal, type Units } from './decimal';

/**
 * Limits a person sets for an autonomous agent's local signer. Amounts are per payment-token symbol (USDC…).
 * Buying and contributing spend; listing, cancelling and reclaiming do not, but every trade must be in an
 * allowed pool when the list is set.
 */
export interface SpendingPolicy {
  /** Rolling 24 hours. A token with no entry cannot be spent at all (fail closed). */
  readonly maxTotalPerDay: ReadonlyMap<string, Units>;
  /** Highest price per share a buy or a contribution may pay; no entry = no price limit for that token. */
  readonly maxPricePerShare: ReadonlyMap<string, Units>;
  /** Pools (contract addresses) the signer may trade in; undefined = any pool. */
  readonly allowedPools?: ReadonlySet<string>;
}

/** What a prepared transaction does, as far as the policy is concerned. */
export interface TradeFacts {
  readonly kind: 'buy' | 'list' | 'cancel' | 'contribute' | 'reclaim';
  readonly pool: string;
  /** Everything that may leave the wallet per token symbol, summed from the envelope's authorization tree. */
  readonly spends: ReadonlyMap<string, Units>;
  /** Shares bought or contributed for, where the price per share is limited (buy, contribute). */
  readonly shares?: bigint;
}

export type PolicyDecision = { readonly allowed: true } | { readonly allowed: false; readonly reason: string };

/** `spentLast24h`: what this signer already spent per token in the window, from its spend ledger. */
export function evaluatePolicy(policy: SpendingPolicy, facts: TradeFacts, spentLast24h: ReadonlyMap<string, Units>): PolicyDecision {
  if (policy.allowedPools && !policy.allowedPools.has(facts.pool)) {
    return refuse(`pool ${facts.pool} is not one of the allowed pools (${[...policy.allowedPools].join(', ')})`);
  }
  for (const [token, amount] of facts.spends) {
    const refused = tokenLimits(policy, token, amount, facts.shares, spentLast24h.get(token) ?? 0n);
    if (refused) return refused;
  }
  return { allowed: true };
}

function tokenLimits(policy: SpendingPolicy, token: string, amount: Units, shares: bigint | undefined, spent: Units): PolicyDecision | undefined {
  const maxPrice = policy.maxPricePerShare.get(token);
  // price = amount / shares; compared as amount ≤ max × shares so no division rounds.
  if (maxPrice !== undefined && shares !== undefined && amount > maxPrice * shares) {
    const price = shares > 0n ? formatDecimal(amount / shares) : formatDecimal(amount);
    return refuse(`paying ${price} ${token} per share exceeds the maximum price per share of ${formatDecimal(maxPrice)} ${token}`);
  }
  const daily = policy.maxTotalPerDay.get(token);
  if (daily === undefined) return refuse(`no daily limit is set for ${token}, so the signer spends none (set DOB_POLICY_MAX_PER_DAY=${token}:<amount>)`);
  if (spent + amount > daily) {
    return refuse(
      `${formatDecimal(amount)} ${token} would bring the last 24 hours' spending to ${formatDecimal(spent + amount)} ${token}, ` +
        `over the daily limit of ${formatDecimal(daily)} ${token} (already spent ${formatDecimal(spent)} ${token}, ${formatDecimal(daily > spent ? daily - spent : 0n)} ${token} left)`,
    );
  }
  return undefined;
}

const refuse = (why: string): PolicyDecision => ({ allowed: false, reason: `Refused by the spending policy: ${why}.` });

/**
 * Reads the policy from its settings: `USDC:100,EURC:50` per-token maps and a comma-separated pool list. The
 * daily limit is required: a signer without one would be a signer without limits.
 */
export function parsePolicy(settings: { maxPerDay?: string; maxPricePerShare?: string; allowedPools?: string }): SpendingPolicy {
  if (!settings.maxPerDay?.trim())
    throw new Error('DOB_POLICY_MAX_PER_DAY is required with a local signer (e.g. USDC:100): the signer refuses to run without a daily limit');
  const pools = settings.allowedPools
    ?.split(',')
    .map((p) => p.trim())
    .filter(Boolean);
  return {
    maxTotalPerDay: tokenAmounts(settings.maxPerDay, 'DOB_POLICY_MAX_PER_DAY'),
    maxPricePerShare: settings.maxPricePerShare?.trim() ? tokenAmounts(settings.maxPricePerShare, 'DOB_POLICY_MAX_PRICE_PER_SHARE') : new Map(),
    allowedPools: pools?.length ? new Set(pools) : undefined,
  };
}

function tokenAmounts(text: string, name: string): Map<string, Units> {
  const out = new Map<string, Units>();
  for (const entry of text
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean)) {
    const m = /^([A-Za-z0-9]{1,12}):(.+)$/.exec(entry);
    if (!m) throw new Error(`${name}: "${entry}" is not SYMBOL:amount (e.g. USDC:100)`);
    out.set(m[1], parseDecimal(m[2], `${name} ${m[1]}`));
  }
  return out;
}

/** The policy as the agent may see it (get_agent_status). */
export function describePolicy(policy: SpendingPolicy): Record<string, unknown> {
  const show = (m: ReadonlyMap<string, Units>) => Object.fromEntries([...m].map(([t, v]) => [t, formatDecimal(v)]));
  return {
    max_total_per_day: show(policy.maxTotalPerDay),
    max_price_per_share: show(policy.maxPricePerShare),
    allowed_pools: policy.allowedPools ? [...policy.allowedPools] : 'any',
  };
}
