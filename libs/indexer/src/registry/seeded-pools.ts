import type { DevnetPool } from '@dob/devnet-manifest';
import type { EventStore } from '@dob/event-store';
import { registerPool } from './pool-registry';

/**
 * The seeder's off-chain metadata → the pool registry (what apps/all and an indexer given DEVNET_URL do on start).
 * Registered at the pool's seeded creation time, not at this process's start: the registry's time shows as a
 * pool's `created_at` until its init is indexed (or for good, when the chain has none), and every process
 * following the same devnet must answer the same.
 */
export async function registerSeededPools(store: EventStore, networkId: number, pools: readonly DevnetPool[]): Promise<void> {
  for (const p of pools) {
    const metadata = {
      name: p.name,
      ticker: p.ticker,
      access_type: p.access_type,
      distribution_type: p.distribution_type,
      estimated_apr: p.estimated_apr,
      max_participants: p.max_participants,
      token_to_distribute: p.token_to_distribute,
    };
    await registerPool(store, { networkId, pool: p.pool_address, metadata }, () => new Date(p.created_at));
  }
}
