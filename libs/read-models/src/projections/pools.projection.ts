import type { ProjectionDefinition, ProjectionState } from '@dob/projections';
import { byEventType, type Chain } from './event-handlers';

/**
 * One document per pool (network, splitter address): registry metadata (name, ticker, access/distribution type,
 * APR — no contract holds these, docs/contracts.md §7), what `init` says (version, creator, participation token), lock
 * and admin state, V2 distribution config/schedule, and the running total distributed. Member counts and share
 * totals come from the members model at query time. `listed` (initialised or registered) is what the lists show:
 * the model also keeps documents for events of unknown pools.
 */
export const POOLS = 'pools';

export type PoolDoc = {
  network_id: number;
  address: string;
  listed: boolean;
  registered: boolean;
  name: string | null;
  ticker: string | null;
  access_type: string | null;
  distribution_type: string | null;
  estimated_apr: string | null;
  max_participants: number | null;
  token_to_distribute: string | null;
  initialized: boolean;
  pool_version: string | null;
  pool_type: string | null;
  creator_address: string | null;
  admin: string | null;
  mutable: boolean | null;
  locked: boolean;
  participation_token: string | null;
  created_at: string | null;
  created_event_id: string | null;
  min_interval_seconds: bigint | null;
  claim_delay_seconds: bigint | null;
  round_expiry_seconds: bigint | null;
  schedule_first: bigint | null;
  schedule_interval: bigint | null;
  schedule_total: number | null;
  schedule_enabled: boolean;
  total_distributed: bigint;
  distribution_count: number;
  last_distribution_at: string | null;
  distribution_token: string | null;
};

const newPool = (network_id: number, address: string): PoolDoc => ({
  network_id,
  address,
  listed: false,
  registered: false,
  name: null,
  ticker: null,
  access_type: null,
  distribution_type: null,
  estimated_apr: null,
  max_participants: null,
  token_to_distribute: null,
  initialized: false,
  pool_version: null,
  pool_type: null,
  creator_address: null,
  admin: null,
  mutable: null,
  locked: false,
  participation_token: null,
  created_at: null,
  created_event_id: null,
  min_interval_seconds: null,
  claim_delay_seconds: null,
  round_expiry_seconds: null,
  schedule_first: null,
  schedule_interval: null,
  schedule_total: null,
  schedule_enabled: false,
  total_distributed: 0n,
  distribution_count: 0,
  last_distribution_at: null,
  distribution_token: null,
});

/** Reads the pool (a fresh one if this is its first event), lets `change` compute the new fields, writes it. */
async function updatePool(s: ProjectionState, networkId: number, address: string, change: (p: PoolDoc) => Partial<PoolDoc>): Promise<void> {
  const current = (await s.get<PoolDoc>(POOLS, { network_id: networkId, address })) ?? newPool(networkId, address);
  const next = { ...current, ...change(current) };
  s.put(POOLS, { ...next, listed: next.initialized || next.registered });
}

const METADATA = ['name', 'ticker', 'access_type', 'distribution_type', 'estimated_apr', 'max_participants', 'token_to_distribute'] as const;

/** Every list sort of pool-queries, behind the `listed` predicate, ending on the (network_id, address) tie-breaker. */
const LIST_SORTS = ['created_at desc nulls last', 'created_at asc nulls last', 'estimated_apr desc nulls last', 'estimated_apr asc nulls last'];

export const poolsProjection: ProjectionDefinition = {
  name: POOLS,
  // v2: indexes for the list's sorts. v3: a document reducer for both stores; `listed` leads the list indexes.
  version: 3,
  collections: {
    pools: {
      fields: {
        network_id: 'int',
        address: 'text',
        listed: 'bool',
        registered: 'bool',
        name: 'text?',
        ticker: 'text?',
        access_type: 'text?',
        distribution_type: 'text?',
        estimated_apr: 'decimal?',
        max_participants: 'int?',
        token_to_distribute: 'text?',
        initialized: 'bool',
        pool_version: 'text?',
        pool_type: 'text?',
        creator_address: 'text?',
        admin: 'text?',
        mutable: 'bool?',
        locked: 'bool',
        participation_token: 'text?',
        created_at: 'timestamp?',
        created_event_id: 'text?',
        // u64 on chain (seconds): exact, like amounts.
        min_interval_seconds: 'amount?',
        claim_delay_seconds: 'amount?',
        round_expiry_seconds: 'amount?',
        schedule_first: 'amount?',
        schedule_interval: 'amount?',
        schedule_total: 'int?',
        schedule_enabled: 'bool',
        total_distributed: 'amount',
        distribution_count: 'int',
        last_distribution_at: 'timestamp?',
        distribution_token: 'text?',
      },
      key: ['network_id', 'address'],
      indexes: [
        { keys: ['address'] },
        ...LIST_SORTS.map((sort) => ({ keys: ['listed', sort, 'network_id', 'address'] })),
        { keys: ['listed', 'network_id', 'address'] },
      ],
    },
  },
  ...byEventType({
    async PoolRegistered(s, e) {
      const d = e.data;
      await updatePool(s, d.network_id, d.pool, (p) => ({
        registered: true,
        name: d.name,
        ticker: d.ticker,
        access_type: d.access_type,
        distribution_type: d.distribution_type,
        estimated_apr: d.estimated_apr,
        max_participants: d.max_participants,
        token_to_distribute: d.token_to_distribute,
        created_at: p.created_at ?? d.registered_at,
        created_event_id: p.created_event_id ?? e.id,
      }));
    },
    async PoolMetadataUpdated(s, e) {
      const d = e.data;
      const changed = METADATA.filter((c) => c in d.changes);
      await updatePool(s, d.network_id, d.pool, () => Object.fromEntries(changed.map((c) => [c, d.changes[c]])));
    },
    async PoolInitialized(s, e) {
      const d = e.data;
      const c: Chain = d.chain;
      // The first sighting of the pool on chain is its creation time (no on-chain "pool created" event, docs/contracts.md §7).
      await updatePool(s, c.network_id, c.contract_id, () => ({
        initialized: true,
        pool_version: d.pool_version,
        pool_type: d.pool_type,
        creator_address: d.admin,
        admin: d.admin,
        mutable: d.mutable,
        participation_token: d.participation_token,
        created_at: c.closed_at,
        created_event_id: c.event_id,
      }));
    },
    async PoolAdminChanged(s, e) {
      const c: Chain = e.data.chain;
      await updatePool(s, c.network_id, c.contract_id, () => ({ admin: e.data.new_admin }));
    },
    async PoolLocked(s, e) {
      const c: Chain = e.data.chain;
      await updatePool(s, c.network_id, c.contract_id, () => ({ locked: true }));
    },
    async PoolDistributionConfigured(s, e) {
      const d = e.data;
      const c: Chain = d.chain;
      await updatePool(s, c.network_id, c.contract_id, () => ({
        min_interval_seconds: BigInt(d.min_interval_seconds),
        claim_delay_seconds: BigInt(d.claim_delay_seconds),
        round_expiry_seconds: BigInt(d.round_expiry_seconds),
      }));
    },
    async PoolScheduleSet(s, e) {
      const d = e.data;
      const c: Chain = d.chain;
      await updatePool(s, c.network_id, c.contract_id, () => ({
        schedule_enabled: true,
        schedule_first: BigInt(d.first_distribution_time),
        schedule_interval: BigInt(d.interval_seconds),
        schedule_total: d.total_distributions,
      }));
    },
    async PoolScheduleDisabled(s, e) {
      const c: Chain = e.data.chain;
      await updatePool(s, c.network_id, c.contract_id, () => ({ schedule_enabled: false }));
    },
    async RoundCreated(s, e) {
      await addDistribution(s, e.data.chain, e.data.total_amount, e.data.token);
    },
    async DistributionCompleted(s, e) {
      await addDistribution(s, e.data.chain, e.data.total_distributed, e.data.token);
    },
  }),
};

async function addDistribution(s: ProjectionState, c: Chain, amount: string, token: string): Promise<void> {
  await updatePool(s, c.network_id, c.contract_id, (p) => ({
    total_distributed: p.total_distributed + BigInt(amount),
    distribution_count: p.distribution_count + 1,
    last_distribution_at: c.closed_at,
    distribution_token: token,
  }));
}
