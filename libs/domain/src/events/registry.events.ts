import { z } from 'zod';
import { contractAddress, isoTime, networkId } from './chain-ref';
import { defineEvent } from './define-event';

/**
 * Off-chain pool metadata no contract holds (docs/contracts.md §7: no name/access-type/APR on chain), fed by operators
 * through the pool registry. Appended to the pool's stream so it replays like everything else.
 */
export const poolMetadataShape = {
  name: z.string().min(1).max(200),
  ticker: z.string().min(1).max(32),
  access_type: z.string().min(1).max(64),
  distribution_type: z.string().min(1).max(64),
  /** Percent as a decimal string ("8.5"), never a float. */
  estimated_apr: z
    .string()
    .regex(/^\d+(\.\d+)?$/)
    .nullable(),
  max_participants: z.number().int().positive().nullable(),
  token_to_distribute: z.string().min(1).nullable(),
};
export const poolMetadataSchema = z.object(poolMetadataShape).strict();
export type PoolMetadata = z.infer<typeof poolMetadataSchema>;

export const PoolRegistered = defineEvent(
  'PoolRegistered',
  z.object({ network_id: networkId, pool: contractAddress, ...poolMetadataShape, registered_at: isoTime }).strict(),
);

/** Only the fields that changed are present in `changes`. */
export const PoolMetadataUpdated = defineEvent(
  'PoolMetadataUpdated',
  z
    .object({
      network_id: networkId,
      pool: contractAddress,
      changes: z.object(poolMetadataShape).partial().strict(),
      updated_at: isoTime,
    })
    .strict(),
);

export const registryEvents = [PoolRegistered, PoolMetadataUpdated];
