import { z } from 'zod';

/**
 * Shared field schemas for chain-derived domain events.
 * Amounts are i128 base units serialised as decimal strings (bigint never crosses JSON as a number);
 * u64 values (round ids, unix seconds) are decimal strings for the same reason.
 */
export const i128String = z.string().regex(/^-?\d+$/, 'decimal string of an i128');
export const u64String = z.string().regex(/^\d+$/, 'decimal string of a u64');
/** Stellar strkey: account (G…), contract (C…) or muxed (M…). */
export const stellarAddress = z.string().regex(/^[GCM][A-Z2-7]{55,68}$/, 'Stellar address');
export const contractAddress = z.string().regex(/^C[A-Z2-7]{55}$/, 'contract address');
export const isoTime = z.string().datetime({ offset: true });
export const networkId = z.number().int().nonnegative();

/** Where a domain event came from on chain; present on every chain-derived event. */
export const chainRefSchema = z.object({
  network_id: networkId,
  contract_id: contractAddress,
  tx_hash: z.string().regex(/^[0-9a-f]{64}$/i),
  ledger: z.number().int().nonnegative(),
  /** The RPC event id (getEvents `id`, a TOID-based string that orders events). */
  event_id: z.string().min(1),
  closed_at: isoTime,
});
export type ChainRef = z.infer<typeof chainRefSchema>;

/** `{chain, ...fields}`: the common shape of a chain-derived payload. */
export function chainPayload<S extends z.ZodRawShape>(shape: S) {
  return z.object({ chain: chainRefSchema, ...shape }).strict();
}
