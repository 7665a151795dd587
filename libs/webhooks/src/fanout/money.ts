/** Stellar Asset Contracts use 7 decimals (docs/contracts.md §1), the read models' default too. */
export const STELLAR_TOKEN_DECIMALS = 7;

/** Share counts are integers in JSON (docs/decisions.md#d1); i128 share amounts fit a double for any real pool. */
export function shareCount(value: bigint | string): number {
  return Number(typeof value === 'bigint' ? value : BigInt(value));
}
