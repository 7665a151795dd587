import type { ProjectionDefinition } from '@dob/projections';
import type { SqlExecutor } from '@dob/sql';
import { applyByType, type Chain, type EventHandler } from './apply-by-type';

/**
 * The pool event log (spec: Pool event). One row per user-facing chain fact, typed init | distribute | claim |
 * transfer_shares | withdraw | lock | set_admin. Amounts stay in base units (or share counts, `amount_kind`);
 * the human description is written at query time, when the token's symbol and decimals are known.
 */
export const POOL_EVENTS = 'pool_events';

export const POOL_EVENT_TYPES = ['init', 'distribute', 'claim', 'transfer_shares', 'withdraw', 'lock', 'set_admin'] as const;
export type PoolEventType = (typeof POOL_EVENT_TYPES)[number];

interface Row {
  event_type: PoolEventType;
  pool: string;
  from_address: string | null;
  to_address: string | null;
  amount: string | null;
  amount_kind: 'token' | 'shares' | null;
  token: string | null;
  detail: string | null;
}

function record(map: (d: any, c: Chain) => Row): EventHandler {
  return async (tx, t, e) => {
    const d = e.data;
    const c: Chain = d.chain;
    const r = map(d, c);
    await tx.query(
      `INSERT INTO ${t.events} (network_id, pool, event_type, transaction_hash, from_address, to_address, amount,
                                amount_kind, token, detail, date, chain_event_id, event_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) ON CONFLICT (event_id) DO NOTHING`,
      [c.network_id, r.pool, r.event_type, c.tx_hash, r.from_address, r.to_address, r.amount, r.amount_kind, r.token, r.detail, c.closed_at, c.event_id, e.id],
    );
  };
}

const base = { from_address: null, to_address: null, amount: null, amount_kind: null, token: null, detail: null } as const;

export const poolEventsProjection: ProjectionDefinition<SqlExecutor> = {
  name: POOL_EVENTS,
  version: 1,
  eventTypes: [
    'PoolInitialized',
    'RoundCreated',
    'DistributionCompleted',
    'RoundClaimed',
    'AllocationWithdrawn',
    'PoolTokensWithdrawnByAdmin',
    'SharesTransferred',
    'PoolLocked',
    'PoolAdminChanged',
  ],
  tables: ['events'],
  async setup(tx, t) {
    await tx.exec(`CREATE TABLE ${t.events} (
      network_id       int         NOT NULL,
      pool             text        NOT NULL,
      event_type       text        NOT NULL,
      transaction_hash text        NOT NULL,
      from_address     text,
      to_address       text,
      amount           text,
      amount_kind      text,
      token            text,
      detail           text,
      date             timestamptz NOT NULL,
      chain_event_id   text        NOT NULL,
      event_id         text        PRIMARY KEY
    );
    CREATE INDEX ON ${t.events} (network_id, pool, date DESC, chain_event_id DESC, event_id DESC);`);
  },
  apply: applyByType({
    PoolInitialized: record((d, c) => ({ ...base, event_type: 'init', pool: c.contract_id, from_address: d.admin, detail: `V${d.pool_version}` })),
    RoundCreated: record((d, c) => ({ ...base, event_type: 'distribute', pool: c.contract_id, from_address: c.contract_id, amount: d.total_amount, amount_kind: 'token', token: d.token, detail: d.round_id })),
    DistributionCompleted: record((d, c) => ({ ...base, event_type: 'distribute', pool: c.contract_id, from_address: c.contract_id, amount: d.total_distributed, amount_kind: 'token', token: d.token })),
    RoundClaimed: record((d, c) => ({ ...base, event_type: 'claim', pool: c.contract_id, from_address: d.shareholder, amount: d.amount, amount_kind: 'token', token: d.token, detail: d.round_id })),
    AllocationWithdrawn: record((d, c) => ({ ...base, event_type: 'withdraw', pool: c.contract_id, from_address: d.shareholder, amount: d.amount, amount_kind: 'token', token: d.token })),
    PoolTokensWithdrawnByAdmin: record((d, c) => ({ ...base, event_type: 'withdraw', pool: c.contract_id, from_address: c.contract_id, to_address: d.recipient, amount: d.amount, amount_kind: 'token', token: d.token, detail: 'admin' })),
    SharesTransferred: record((d, c) => ({ ...base, event_type: 'transfer_shares', pool: d.pool, from_address: d.from ?? c.contract_id, to_address: d.to, amount: d.shares, amount_kind: 'shares', detail: d.reason })),
    PoolLocked: record((_d, c) => ({ ...base, event_type: 'lock', pool: c.contract_id })),
    PoolAdminChanged: record((d, c) => ({ ...base, event_type: 'set_admin', pool: c.contract_id, from_address: d.previous_admin, to_address: d.new_admin })),
  }),
};
