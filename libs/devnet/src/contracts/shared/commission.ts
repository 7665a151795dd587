import { HostError } from '../../host/host-errors';
import { addr, asAddress, asI128, asStruct, dataKey, field, i128, struct } from '../../host/scval';
import type { ContractEnv } from '../contract';

/**
 * `CommissionConfig {recipient, buy_rate_bps, distribution_rate_bps}` at instance `["Commission"]`, written lazily
 * with the defaults (150 / 50 bps). commission = floor(amount × bps / 10000); max rate 5000 (docs/contracts.md §2.5).
 */
export interface CommissionConfig {
  readonly recipient: string;
  readonly buyRateBps: bigint;
  readonly distributionRateBps: bigint;
}

const KEY = dataKey('Commission');
export const MAX_COMMISSION_BPS = 5000n;

export function readCommission(env: ContractEnv, defaultRecipient: string): CommissionConfig {
  const v = env.instance.get(KEY);
  if (!v) {
    const c = { recipient: defaultRecipient, buyRateBps: 150n, distributionRateBps: 50n };
    writeCommission(env, c);
    return c;
  }
  const s = asStruct(v);
  return {
    recipient: asAddress(field(s, 'recipient')),
    buyRateBps: asI128(field(s, 'buy_rate_bps')),
    distributionRateBps: asI128(field(s, 'distribution_rate_bps')),
  };
}

export function writeCommission(env: ContractEnv, c: CommissionConfig): void {
  env.instance.set(KEY, commissionToScVal(c));
}

export const commissionToScVal = (c: CommissionConfig) =>
  struct({ recipient: addr(c.recipient), buy_rate_bps: i128(c.buyRateBps), distribution_rate_bps: i128(c.distributionRateBps) });

export const commissionOf = (amount: bigint, bps: bigint): bigint => (amount * bps) / 10000n;

/** The three commission setters; all require the current recipient's auth. */
export function setCommissionRecipient(env: ContractEnv, defaultRecipient: string, newRecipient: string): void {
  const c = readCommission(env, defaultRecipient);
  env.requireAuth(c.recipient);
  writeCommission(env, { ...c, recipient: newRecipient });
}

export function setCommissionRate(env: ContractEnv, defaultRecipient: string, which: 'buy' | 'distribution', rate: bigint, invalidRateCode: number): void {
  const c = readCommission(env, defaultRecipient);
  env.requireAuth(c.recipient);
  if (rate < 0n || rate > MAX_COMMISSION_BPS) throw HostError.contract(invalidRateCode);
  writeCommission(env, which === 'buy' ? { ...c, buyRateBps: rate } : { ...c, distributionRateBps: rate });
}
