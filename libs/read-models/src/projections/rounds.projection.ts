import type { DocOf, Fields, ProjectionDefinition, ProjectionState } from '@dob/projections';
import { byEventType, type Chain, type EventHandler } from './event-handlers';
import { POOL_VERSIONS, SHARE_EVENT_TYPES, shareDeltas, shareTableReplacement, type ShareDelta, type ShareEventType } from './share-ledger';

/**
 * Distribution rounds per pool with their totals and claims (docs/decisions.md#d4).
 * - V2: `dist_new` (RoundCreated) opens round `round_id`; `claimed` adds to it; `reclaim` records the remainder.
 *   total_shares = the pool's share supply when the round was created (the contract's total_supply_snapshot).
 * - V1: `distrib` (DistributionAllocated) credits holders, then `dist_all` (DistributionCompleted) closes the
 *   round; V1 rounds get ids 0, 1, … per pool in event order, are claimable at once and never expire. The push
 *   model credits every holder, so the credited allocations are the round's claims.
 * Status (pending/completed/expired) is NOT stored: it depends on the clock and is computed at query time.
 */
export const ROUNDS = 'distribution_rounds';

/** The round document, declared once: RoundDoc, the store's columns, RoundRow and the API's plain fields follow. */
export const ROUND_FIELDS = {
  network_id: 'int',
  pool: 'text',
  round_id: 'int8',
  pool_version: 'text',
  token: 'text',
  total_amount: 'amount',
  total_shares: 'amount',
  total_claimed: 'amount',
  claim_count: 'int',
  reclaimed: 'amount?',
  created_at: 'timestamp',
  claimable_from: 'timestamp',
  expires_at: 'timestamp?',
  tx_hash: 'text',
} as const satisfies Fields;
export type RoundDoc = DocOf<typeof ROUND_FIELDS>;
export type ClaimDoc = { network_id: number; pool: string; round_id: number; holder: string; token: string; amount: bigint; claimed_at: string };
type TotalsDoc = { network_id: number; pool: string; total_shares: bigint; v1_rounds: number };
/** Credits of the V1 round in progress; `open` until its dist_all turns them into claims. */
type PendingDoc = { network_id: number; pool: string; holder: string; token: string; amount: bigint; open: boolean };
export type WithdrawalDoc = { network_id: number; pool: string; holder: string; token: string; amount: bigint };

const HOLDER_AMOUNT = { network_id: 'int', pool: 'text', holder: 'text', token: 'text', amount: 'amount' } as const;

const noTotals = (networkId: number, pool: string): TotalsDoc => ({ network_id: networkId, pool, total_shares: 0n, v1_rounds: 0 });

const totalsOf = async (s: ProjectionState, networkId: number, pool: string): Promise<TotalsDoc> =>
  (await s.get<TotalsDoc>('totals', { network_id: networkId, pool })) ?? noTotals(networkId, pool);

const shares: EventHandler<ShareEventType> = async (s, e) => {
  for (const d of netPerPool(await shareDeltas(s, e))) {
    const stored = await s.get<TotalsDoc>('totals', { network_id: d.networkId, pool: d.pool });
    if (stored && d.delta === 0n) continue; // a transfer: the pool's total is what it was
    const t = stored ?? noTotals(d.networkId, d.pool);
    s.put('totals', { ...t, total_shares: t.total_shares + d.delta });
  }
  const table = await shareTableReplacement(s, e);
  if (table) {
    const t = await totalsOf(s, table.networkId, table.pool);
    s.put('totals', { ...t, total_shares: [...table.holders.values()].reduce((a, b) => a + b, 0n) });
  }
};

/**
 * An event's share deltas added up per pool: a transfer's two cancel out and a V1 cap table's many make one, so a
 * pool's total is read and written once an event, or only read when it does not change (it is still created, at
 * zero, for a pool that had none — as one delta at a time did). Nearly every event has its deltas in one pool.
 */
function netPerPool(deltas: readonly ShareDelta[]): readonly { networkId: number; pool: string; delta: bigint }[] {
  if (deltas.length < 2) return deltas;
  const out: { networkId: number; pool: string; delta: bigint }[] = [];
  for (const d of deltas) {
    const same = out.find((o) => o.networkId === d.networkId && o.pool === d.pool);
    if (same) same.delta += d.delta;
    else out.push({ networkId: d.networkId, pool: d.pool, delta: d.delta });
  }
  return out;
}

/** V1 shares are basis points: init and update_shares require Σ = 10,000 (docs/contracts.md §2, InvalidShareTotal). */
const V1_TOTAL_SHARES = 10_000n;

export const roundsProjection: ProjectionDefinition = {
  name: ROUNDS,
  // v2: share totals include V1 initial cap tables and update_shares replacements (see share-ledger).
  // v3: a document reducer for both stores; V1 credits are closed (open = false) rather than deleted.
  version: 3,
  collections: {
    rounds: {
      fields: ROUND_FIELDS,
      key: ['network_id', 'pool', 'round_id'],
      indexes: [{ keys: ['claimable_from'] }, { keys: ['network_id', 'pool', 'created_at desc', 'round_id desc'] }],
    },
    claims: {
      fields: { network_id: 'int', pool: 'text', round_id: 'int8', holder: 'text', token: 'text', amount: 'amount', claimed_at: 'timestamp' },
      key: ['network_id', 'pool', 'round_id', 'holder'],
      indexes: [{ keys: ['holder', 'network_id', 'pool'] }],
    },
    totals: { fields: { network_id: 'int', pool: 'text', total_shares: 'amount', v1_rounds: 'int' }, key: ['network_id', 'pool'] },
    versions: POOL_VERSIONS,
    v1_pending: {
      fields: { ...HOLDER_AMOUNT, open: 'bool' },
      key: ['network_id', 'pool', 'holder', 'token'],
      indexes: [{ keys: ['network_id', 'pool', 'token', 'open'], lookup: true }],
    },
    withdrawals: { fields: HOLDER_AMOUNT, key: ['network_id', 'pool', 'holder', 'token'], indexes: [{ keys: ['holder', 'network_id', 'pool'] }] },
  },
  ...byEventType({
    ...Object.fromEntries(SHARE_EVENT_TYPES.map((type) => [type, shares])),
    async RoundCreated(s, e) {
      const d = e.data;
      const c: Chain = d.chain;
      const key = { network_id: c.network_id, pool: c.contract_id, round_id: Number(d.round_id) };
      if (await s.get('rounds', key)) return;
      s.put('rounds', {
        ...key,
        pool_version: '2',
        token: d.token,
        total_amount: BigInt(d.total_amount),
        total_shares: (await totalsOf(s, c.network_id, c.contract_id)).total_shares,
        total_claimed: 0n,
        claim_count: 0,
        reclaimed: null,
        created_at: c.closed_at,
        claimable_from: d.claimable_from,
        expires_at: d.expires_at,
        tx_hash: c.tx_hash,
      });
    },
    async RoundClaimed(s, e) {
      const d = e.data;
      const c: Chain = d.chain;
      const round = { network_id: c.network_id, pool: c.contract_id, round_id: Number(d.round_id) };
      const claim = { ...round, holder: d.shareholder };
      if (!(await s.get('claims', claim))) s.put('claims', { ...claim, token: d.token, amount: BigInt(d.amount), claimed_at: c.closed_at });
      const r = await s.get<RoundDoc>('rounds', round);
      if (r) s.put('rounds', { ...r, total_claimed: r.total_claimed + BigInt(d.amount), claim_count: r.claim_count + 1 });
    },
    async RoundReclaimed(s, e) {
      const d = e.data;
      const c: Chain = d.chain;
      const r = await s.get<RoundDoc>('rounds', { network_id: c.network_id, pool: c.contract_id, round_id: Number(d.round_id) });
      if (r) s.put('rounds', { ...r, reclaimed: (r.reclaimed ?? 0n) + BigInt(d.unclaimed) });
    },
    async DistributionAllocated(s, e) {
      const d = e.data;
      const c: Chain = d.chain;
      const key = { network_id: c.network_id, pool: c.contract_id, holder: d.shareholder, token: d.token };
      const p = await s.get<PendingDoc>('v1_pending', key);
      s.put('v1_pending', { ...key, amount: (p?.open ? p.amount : 0n) + BigInt(d.amount), open: true });
    },
    async DistributionCompleted(s, e) {
      const d = e.data;
      const c: Chain = d.chain;
      const t = await totalsOf(s, c.network_id, c.contract_id);
      s.put('totals', { ...t, v1_rounds: t.v1_rounds + 1 });
      const roundId = t.v1_rounds;
      // The push model credited each holder just before dist_all: those credits are this round's claims.
      const credits = await s.find<PendingDoc>('v1_pending', { network_id: c.network_id, pool: c.contract_id, token: d.token, open: true });
      for (const p of credits) {
        s.put('claims', {
          network_id: p.network_id,
          pool: p.pool,
          round_id: roundId,
          holder: p.holder,
          token: p.token,
          amount: p.amount,
          claimed_at: c.closed_at,
        });
        s.put('v1_pending', { ...p, amount: 0n, open: false });
      }
      const key = { network_id: c.network_id, pool: c.contract_id, round_id: roundId };
      if (await s.get('rounds', key)) return;
      s.put('rounds', {
        ...key,
        pool_version: '1',
        token: d.token,
        total_amount: BigInt(d.total_distributed),
        total_shares: V1_TOTAL_SHARES,
        total_claimed: credits.reduce((n, p) => n + p.amount, 0n),
        claim_count: credits.length,
        reclaimed: null,
        created_at: c.closed_at,
        claimable_from: c.closed_at,
        expires_at: null,
        tx_hash: c.tx_hash,
      });
    },
    async AllocationWithdrawn(s, e) {
      const d = e.data;
      const c: Chain = d.chain;
      const key = { network_id: c.network_id, pool: c.contract_id, holder: d.shareholder, token: d.token };
      const w = await s.get<WithdrawalDoc>('withdrawals', key);
      s.put('withdrawals', { ...key, amount: (w?.amount ?? 0n) + BigInt(d.amount) });
    },
  }),
};
