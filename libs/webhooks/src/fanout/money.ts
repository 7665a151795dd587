import { formatAmount as readModelAmount, saleAddress } from '@dob/read-models';

/** Stellar Asset Contracts use 7 decimals (dob-contracts §1), the read models' default too. */
export const STELLAR_TOKEN_DECIMALS = 7;

/** Decimal string with trailing zeros trimmed to two decimals ("12.50") — the read API's own formatter. */
export function formatAmount(baseUnits: bigint | string, decimals = STELLAR_TOKEN_DECIMALS): string {
  return readModelAmount(baseUnits, decimals);
}

/** The read models' `SALE_` derivation, so a webhook's sale_address is the id the marketplace endpoints accept. */
export { saleAddress };

/** Share counts are integers in JSON (spec); i128 share amounts fit a double for any real pool. */
export function shareCount(value: bigint | string): number {
  return Number(typeof value === 'bigint' ? value : BigInt(value));
}
