import { addr, asI128, dataKey, i128 } from '../../host/scval';
import type { ContractEnv } from '../contract';

/**
 * Persistent `["TotalAllocation", token]` of both splitter lines (V1 storage.rs `AllocationDataKey`, V2 the same
 * key): what the pool owes its holders in that token, so it is never distributed or transferred twice.
 */
const totalAllocationKey = (token: string) => dataKey('TotalAllocation', addr(token));

export const readTotalAllocation = (env: ContractEnv, token: string): bigint => {
  const v = env.persistent.get(totalAllocationKey(token));
  return v ? asI128(v) : 0n;
};

export const writeTotalAllocation = (env: ContractEnv, token: string, n: bigint): void => env.persistent.set(totalAllocationKey(token), i128(n));

/**
 * Withdrawals, claims and reclaims lower the reservation; at zero the entry is removed, not kept as 0
 * (V1 storage.rs `save_allocation`/`remove_allocation`, V2 reclaim.rs; the V2 claim and reclaim snapshots).
 */
export function reduceTotalAllocation(env: ContractEnv, token: string, by: bigint): void {
  const left = readTotalAllocation(env, token) - by;
  if (left <= 0n) env.persistent.remove(totalAllocationKey(token));
  else writeTotalAllocation(env, token, left);
}
