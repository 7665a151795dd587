import type { ChainDerivedEventType, ChainEventData } from '@dob/domain';
import type { DocOf, Fields, ProjectionDefinition } from '@dob/projections';
import { byEventType, type Chain, type EventHandler } from './event-handlers';

/**
 * The pool event log (docs/agent-api.md#vocabulary). One document per user-facing chain fact, typed init |
 * distribute | claim | transfer_shares | withdraw | lock | set_admin. Amounts stay in base units (or share counts, `amount_kind`);
 * the human description is written at query time, when the token's symbol and decimals are known.
 */
export const POOL_EVENTS = 'pool_events';

export const POOL_EVENT_TYPES = ['init', 'distribute', 'claim', 'transfer_shares', 'withdraw', 'lock', 'set_admin'] as const;
export type PoolEventType = (typeof POOL_EVENT_TYPES)[number];

/** A pool event, declared once: the store's columns, EventRow (the readers') and the API's plain fields follow. */
export const POOL_EVENT_FIELDS = {
  network_id: 'int',
  pool: 'text',
  event_type: 'text',
  transaction_hash: 'text',
  from_address: 'text?',
  to_address: 'text?',
  amount: 'text?',
  amount_kind: 'text?',
  token: 'text?',
  detail: 'text?',
  date: 'timestamp',
  chain_event_id: 'text',
  event_id: 'text',
} as const satisfies Fields;

/** `event_type` and `amount_kind` are text in the stores, narrower in the reducer and the rows. */
export type PoolEventDoc = Omit<DocOf<typeof POOL_EVENT_FIELDS>, 'event_type' | 'amount_kind'> & {
  event_type: PoolEventType;
  amount_kind: 'token' | 'shares' | null;
};

/** What a pool event says besides its chain ref: the reducer's per-type mapping. */
type PoolEventRecord = Pick<PoolEventDoc, 'event_type' | 'pool' | 'from_address' | 'to_address' | 'amount' | 'amount_kind' | 'token' | 'detail'>;

/** One document per domain event, keyed by its id (exactly-once application makes a plain write enough). */
function record<K extends ChainDerivedEventType>(map: (d: ChainEventData[K], c: Chain) => PoolEventRecord): EventHandler<K> {
  return (s, e) => {
    const d = e.data;
    const c: Chain = d.chain;
    const r = map(d, c);
    const event: PoolEventDoc = {
      network_id: c.network_id,
      pool: r.pool,
      event_type: r.event_type,
      transaction_hash: c.tx_hash,
      from_address: r.from_address,
      to_address: r.to_address,
      amount: r.amount,
      amount_kind: r.amount_kind,
      token: r.token,
      detail: r.detail,
      date: c.closed_at,
      chain_event_id: c.event_id,
      event_id: e.id,
    };
    s.put('events', event);
  };
}

const base = { from_address: null, to_address: null, amount: null, amount_kind: null, token: null, detail: null } as const;

export const poolEventsProjection: ProjectionDefinition = {
  name: POOL_EVENTS,
  // v2: a document reducer for both stores; an index per list (all types, one type) in the list's order.
  version: 2,
  collections: {
    events: {
      fields: POOL_EVENT_FIELDS,
      key: ['event_id'],
      indexes: [
        { keys: ['network_id', 'pool', 'date desc', 'chain_event_id desc', 'event_id desc'] },
        { keys: ['network_id', 'pool', 'event_type', 'date desc', 'chain_event_id desc', 'event_id desc'] },
      ],
    },
  },
  ...byEventType({
    PoolInitialized: record((d, c) => ({ ...base, event_type: 'init', pool: c.contract_id, from_address: d.admin, detail: `V${d.pool_version}` })),
    RoundCreated: record((d, c) => ({
      ...base,
      event_type: 'distribute',
      pool: c.contract_id,
      from_address: c.contract_id,
      amount: d.total_amount,
      amount_kind: 'token',
      token: d.token,
      detail: d.round_id,
    })),
    DistributionCompleted: record((d, c) => ({
      ...base,
      event_type: 'distribute',
      pool: c.contract_id,
      from_address: c.contract_id,
      amount: d.total_distributed,
      amount_kind: 'token',
      token: d.token,
    })),
    RoundClaimed: record((d, c) => ({
      ...base,
      event_type: 'claim',
      pool: c.contract_id,
      from_address: d.shareholder,
      amount: d.amount,
      amount_kind: 'token',
      token: d.token,
      detail: d.round_id,
    })),
    AllocationWithdrawn: record((d, c) => ({
      ...base,
      event_type: 'withdraw',
      pool: c.contract_id,
      from_address: d.shareholder,
      amount: d.amount,
      amount_kind: 'token',
      token: d.token,
    })),
    PoolTokensWithdrawnByAdmin: record((d, c) => ({
      ...base,
      event_type: 'withdraw',
      pool: c.contract_id,
      from_address: c.contract_id,
      to_address: d.recipient,
      amount: d.amount,
      amount_kind: 'token',
      token: d.token,
      detail: 'admin',
    })),
    SharesTransferred: record((d, c) => ({
      ...base,
      event_type: 'transfer_shares',
      pool: d.pool,
      from_address: d.from ?? c.contract_id,
      to_address: d.to,
      amount: d.shares,
      amount_kind: 'shares',
      detail: d.reason,
    })),
    PoolLocked: record((_d, c) => ({ ...base, event_type: 'lock', pool: c.contract_id })),
    PoolAdminChanged: record((d, c) => ({ ...base, event_type: 'set_admin', pool: c.contract_id, from_address: d.previous_admin, to_address: d.new_admin })),
  }),
};
