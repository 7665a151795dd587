import { newDocument, type DocOf, type Fields, type ProjectionDefinition, type ProjectionState } from '@dob/projections';
import { byEventType, type Chain } from './event-handlers';

/**
 * One document per pool (network, splitter address): registry metadata (name, ticker, access/distribution type,
 * APR — no contract holds these, docs/contracts.md §7), what `init` says (version, creator, participation token), lock
 * and admin state, V2 distribution config/schedule, and the running total distributed. Member counts and share
 * totals come from the members model at query time. `listed` (initialised or registered) is what the lists show:
 * the model also keeps documents for events of unknown pools.
 */
export const POOLS = 'pools';

/**
 * The pool document, declared once: its type (PoolDoc), its state before any event (newPool), the store's columns,
 * the readers' row (PoolRow) and the API's plain fields (pool-queries.ts) all come from these field specs.
 */
export const POOL_FIELDS = {
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
} as const satisfies Fields;

export type PoolDoc = DocOf<typeof POOL_FIELDS>;

const newPool = (network_id: number, address: string): PoolDoc => newDocument(POOL_FIELDS, { network_id, address });

/** Reads the pool (a fresh one if this is its first event), lets `change` compute the new fields, writes it. */
async function updatePool(s: ProjectionState, networkId: number, address: string, change: (p: PoolDoc) => Partial<PoolDoc>): Promise<void> {
  const current = (await s.get<PoolDoc>(POOLS, { network_id: networkId, address })) ?? newPool(networkId, address);
  const next = { ...current, ...change(current) };
  s.put(POOLS, { ...next, listed: next.initialized || next.registered });
}

const METADATA = ['name', 'ticker', 'access_type', 'distribution_type', 'estimated_apr', 'max_participants', 'token_to_distribute'] as const;

/**
 * The pool list's orders, described once: this projection indexes each stored one (behind `listed`), the SQL reader
 * orders by it and the MongoDB reader sorts by it. Nulls last in every order, ties broken by (network_id, address).
 * `member_count` is the members model's, joined at query time (no index here).
 */
export const POOL_LIST_ORDERS = {
  created_desc: { by: 'created_at', direction: 'desc' },
  created_asc: { by: 'created_at', direction: 'asc' },
  apr_desc: { by: 'estimated_apr', direction: 'desc' },
  apr_asc: { by: 'estimated_apr', direction: 'asc' },
  members_desc: { by: 'member_count', direction: 'desc' },
  members_asc: { by: 'member_count', direction: 'asc' },
} as const satisfies Record<string, { by: keyof typeof POOL_FIELDS | 'member_count'; direction: 'asc' | 'desc' }>;
export type PoolSort = keyof typeof POOL_LIST_ORDERS;
export const POOL_SORTS = Object.keys(POOL_LIST_ORDERS) as readonly PoolSort[];

const LIST_SORTS = Object.values(POOL_LIST_ORDERS).flatMap((o) => (o.by === 'member_count' ? [] : [`${o.by} ${o.direction} nulls last`]));

export const poolsProjection: ProjectionDefinition = {
  name: POOLS,
  // v2: indexes for the list's sorts. v3: a document reducer for both stores; `listed` leads the list indexes.
  version: 3,
  collections: {
    pools: {
      fields: POOL_FIELDS,
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
