import { WASM_HASHES, type SeededPool } from '@dob/devnet';
import type { EventStore } from '@dob/event-store';
import type { KnownWasm } from '../decoding/contract-identity';
import { registerPool } from '../registry/pool-registry';

/**
 * What an indexer needs to follow the embedded devnet (used by apps/all and the tests that compose a devnet).
 *
 * The devnet's stand-in wasm hashes for builds whose real hash the facts do not publish (as apps/all tells its
 * embedded indexer): without them a devnet V1.3 / V2 / participation token could not be identified.
 */
export const DEVNET_KNOWN_WASMS: readonly KnownWasm[] = [
  { hash: WASM_HASHES.splitter_v1_3, kind: 'splitter', version: '1.3-admin', label: 'devnet splitter V1.3' },
  { hash: WASM_HASHES.splitter_v2, kind: 'splitter', version: '2', label: 'devnet splitter V2' },
  { hash: WASM_HASHES.participation_token, kind: 'participation_token', version: '0.2', label: 'devnet participation token' },
];

/** The seeder's off-chain metadata → the pool registry (what apps/all does on start). */
export async function registerSeededPools(store: EventStore, networkId: number, pools: readonly SeededPool[]): Promise<void> {
  for (const p of pools) {
    await registerPool(store, {
      networkId,
      pool: p.pool_address,
      metadata: {
        name: p.name,
        ticker: p.ticker,
        access_type: p.access_type,
        distribution_type: p.distribution_type,
        estimated_apr: p.estimated_apr,
        max_participants: p.max_participants,
        token_to_distribute: p.token_to_distribute,
      },
    });
  }
}
