import type { xdr } from '@stellar/stellar-sdk';
import { HostError } from '../../host/host-errors';
import { addr, asAddress, asI128, asStruct, asU32, dataKey, field, i128, struct, sym, u32, vec } from '../../host/scval';
import type { ContractEnv } from '../contract';
import { commissionOf, readCommission } from '../shared/commission';
import { tokenClient } from '../shared/token-client';
import {
  ERR,
  readAllocation,
  readShare,
  readShareholders,
  readTotalAllocation,
  V1_DEFAULT_COMMISSION_RECIPIENT,
  writeAllocation,
  writeTotalAllocation,
} from './storage';

/**
 * Push distribution (V1.2+, docs/contracts.md §2.5): distributable = balance − TotalAllocation(token); the
 * distribution commission is paid out first (`dist_com`), each holder is allocated
 * floor((distributable − commission) × share / 10000) (`distrib`), the remainder goes to the first largest
 * holder (`dust`), and `dist_all` closes with the total allocated.
 */
interface Plan {
  readonly token: string;
  readonly amountForShareholders: bigint;
  readonly shareholders: string[];
  readonly largest: string | undefined;
}

/** Computes the distributable amount and pays the commission; undefined when there is nothing new. */
export function startPlan(env: ContractEnv, token: string): Plan | undefined {
  const t = tokenClient(env, token);
  const distributable = t.balance(env.contractId) - readTotalAllocation(env, token);
  if (distributable <= 0n) return undefined;
  const c = readCommission(env, V1_DEFAULT_COMMISSION_RECIPIENT);
  const commission = commissionOf(distributable, c.distributionRateBps);
  if (commission > 0n) {
    t.transfer(env.contractId, c.recipient, commission);
    env.emit([sym('dist_com'), addr(token)], vec([addr(c.recipient), i128(commission)]));
  }
  const shareholders = readShareholders(env);
  let largest: string | undefined;
  let largestShare = -1n;
  for (const s of shareholders) {
    const share = readShare(env, s) ?? 0n;
    if (share > largestShare) {
      largest = s;
      largestShare = share;
    }
  }
  return { token, amountForShareholders: distributable - commission, shareholders, largest };
}

/** Allocates to shareholders [from, to); returns the amount allocated. */
export function allocateRange(env: ContractEnv, plan: Plan, from: number, to: number): bigint {
  let total = 0n;
  for (const s of plan.shareholders.slice(from, to)) {
    const amount = (plan.amountForShareholders * (readShare(env, s) ?? 0n)) / 10000n;
    if (amount <= 0n) continue;
    writeAllocation(env, s, plan.token, readAllocation(env, s, plan.token) + amount);
    env.emit([sym('distrib'), addr(s)], vec([addr(plan.token), i128(amount)]));
    total += amount;
  }
  return total;
}

/** Dust to the largest holder, TotalAllocation update and `dist_all`. */
export function finishPlan(env: ContractEnv, plan: Plan, distributed: bigint): void {
  let total = distributed;
  const dust = plan.amountForShareholders - distributed;
  if (dust > 0n && plan.largest) {
    writeAllocation(env, plan.largest, plan.token, readAllocation(env, plan.largest, plan.token) + dust);
    env.emit([sym('dust'), addr(plan.largest)], vec([addr(plan.token), i128(dust)]));
    total += dust;
  }
  writeTotalAllocation(env, plan.token, readTotalAllocation(env, plan.token) + total);
  env.emit([sym('dist_all'), addr(plan.token)], i128(total));
}

export function distributeTokens(env: ContractEnv, token: string): void {
  const plan = startPlan(env, token);
  if (!plan) return;
  finishPlan(env, plan, allocateRange(env, plan, 0, plan.shareholders.length));
}

// ---- V1.3 batch distribution: PendingDistribution (temporary) -------------------------------------------------

export const MAX_DISTRIBUTE_BATCH = 50;
const PENDING = dataKey('PendingDistribution');

export const hasPending = (env: ContractEnv): boolean => env.temporary.has(PENDING);

interface Pending {
  readonly plan: Plan;
  readonly processedUpTo: number;
  readonly totalDistributed: bigint;
}

function writePending(env: ContractEnv, p: Pending): void {
  env.temporary.set(
    PENDING,
    struct({
      token: addr(p.plan.token),
      amount_for_shareholders: i128(p.plan.amountForShareholders),
      total_distributed: i128(p.totalDistributed),
      processed_up_to: u32(p.processedUpTo),
      shareholder_count: u32(p.plan.shareholders.length),
      largest_shareholder: addr(p.plan.largest ?? env.contractId),
      largest_share: i128(p.plan.largest ? (readShare(env, p.plan.largest) ?? 0n) : 0n),
    }),
    17_280,
  );
}

function readPending(env: ContractEnv): Pending {
  const v: xdr.ScVal | undefined = env.temporary.get(PENDING);
  if (!v) throw HostError.contract(ERR.NoDistributionInProgress);
  const s = asStruct(v);
  const largest = asAddress(field(s, 'largest_shareholder'));
  return {
    plan: {
      token: asAddress(field(s, 'token')),
      amountForShareholders: asI128(field(s, 'amount_for_shareholders')),
      shareholders: readShareholders(env),
      largest: largest === env.contractId ? undefined : largest,
    },
    processedUpTo: asU32(field(s, 'processed_up_to')),
    totalDistributed: asI128(field(s, 'total_distributed')),
  };
}

export function startDistribution(env: ContractEnv, token: string): number {
  if (hasPending(env)) throw HostError.contract(ERR.DistributionInProgress);
  const plan = startPlan(env, token);
  if (!plan) return 0;
  writePending(env, { plan, processedUpTo: 0, totalDistributed: 0n });
  env.emit([sym('dist_str')], vec([u32(plan.shareholders.length), i128(plan.amountForShareholders)]));
  return plan.shareholders.length;
}

export function processDistribution(env: ContractEnv, batchSize: number): boolean {
  const p = readPending(env);
  const to = Math.min(p.plan.shareholders.length, p.processedUpTo + Math.max(1, Math.min(batchSize, MAX_DISTRIBUTE_BATCH)));
  const distributed = allocateRange(env, p.plan, p.processedUpTo, to);
  writePending(env, { plan: p.plan, processedUpTo: to, totalDistributed: p.totalDistributed + distributed });
  return to < p.plan.shareholders.length;
}

export function finalizeDistribution(env: ContractEnv): void {
  const p = readPending(env);
  if (p.processedUpTo < p.plan.shareholders.length) throw HostError.contract(ERR.DistributionNotComplete);
  finishPlan(env, p.plan, p.totalDistributed);
  env.temporary.remove(PENDING);
}
