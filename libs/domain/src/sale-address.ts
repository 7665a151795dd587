import { createHash } from 'node:crypto';

/**
 * `sale_address` = `SALE_` + 32 hex chars derived from (network, pool, seller, the `listed` event id) — docs/decisions.md#d2's
 * id decision: the chain has no listing id, and deriving it from the listing's origin makes a rebuild reproduce it.
 */
export function saleAddress(networkId: number, pool: string, seller: string, listedEventId: string): string {
  const digest = createHash('sha256').update(`${networkId}/${pool}/${seller}/${listedEventId}`).digest('hex');
  return `SALE_${digest.slice(0, 32)}`;
}
