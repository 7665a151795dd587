import { createHash } from 'node:crypto';

/**
 * Stellar classic assets (and their SACs) have 7 decimals; the indexer records no other token metadata yet, so
 * payload amounts use 7 — the same figure the read API shows for these tokens.
 */
export const STELLAR_TOKEN_DECIMALS = 7;

/**
 * Decimal string of i128 base units, trailing zeros trimmed to at least two decimals ("12.50") — the brief's money
 * rule, identical to the read models' formatAmount (kept here until that lib exports it from its root).
 */
export function formatAmount(baseUnits: bigint | string, decimals = STELLAR_TOKEN_DECIMALS): string {
  const v = typeof baseUnits === 'bigint' ? baseUnits : BigInt(baseUnits);
  const negative = v < 0n;
  const abs = negative ? -v : v;
  const scale = 10n ** BigInt(decimals);
  let frac = decimals > 0 ? (abs % scale).toString().padStart(decimals, '0').replace(/0+$/, '') : '';
  if (frac.length < 2) frac = frac.padEnd(2, '0');
  return `${negative ? '-' : ''}${(abs / scale).toString()}.${frac}`;
}

/**
 * `SALE_` + 32 hex of sha256(network/pool/seller/listed chain event id): the brief's sale_address, byte-for-byte the
 * derivation the read models use, so a webhook's sale_address is the id the marketplace endpoints accept.
 */
export function saleAddress(networkId: number, pool: string, seller: string, listedEventId: string): string {
  return `SALE_${createHash('sha256').update(`${networkId}/${pool}/${seller}/${listedEventId}`).digest('hex').slice(0, 32)}`;
}

/** Share counts are integers in JSON (spec); i128 share amounts fit a double for any real pool. */
export function shareCount(value: bigint | string): number {
  return Number(typeof value === 'bigint' ? value : BigInt(value));
}
