import type { DocOf, Fields, ProjectionDefinition, ProjectionState } from '@dob/projections';
import { byEventType, type EventHandler } from './event-handlers';
import { POOL_VERSIONS, SHARE_EVENT_TYPES, shareDeltas, shareTableReplacement, type ShareDelta, type ShareEventType } from './share-ledger';

/**
 * Share balances per (network, pool, holder). `joined_at` is when the balance last went from zero to positive;
 * holders whose balance returns to zero keep a document with 0 shares (queries show shares > 0 only).
 * `stats` keeps per pool what the pool lists sort and show — holders with a positive balance and the sum of their
 * shares — maintained with every balance move, so a list never aggregates the whole members collection per request.
 */
export const MEMBERS = 'pool_members';

/** A holder's balance in a pool, declared once: MemberDoc, the store's columns, MemberRow and the API's plain fields follow. */
export const MEMBER_FIELDS = { network_id: 'int', pool: 'text', holder: 'text', shares: 'amount', joined_at: 'timestamp?' } as const satisfies Fields;
export type MemberDoc = DocOf<typeof MEMBER_FIELDS>;
export type MemberStatsDoc = { network_id: number; pool: string; member_count: number; total_shares: bigint };

const apply: EventHandler<ShareEventType> = async (s, e) => {
  const at = e.data.chain.closed_at;
  for (const d of await shareDeltas(s, e)) await move(s, d, at);
  const table = await shareTableReplacement(s, e);
  if (table) {
    // A replaced table is applied as the deltas from the current balances, so joined_at keeps its meaning.
    const rows = await s.find<MemberDoc>('members', { network_id: table.networkId, pool: table.pool });
    const current = new Map(rows.map((r) => [r.holder, r.shares]));
    const holders = [...new Set([...current.keys(), ...table.holders.keys()])].sort();
    for (const holder of holders) {
      const delta = (table.holders.get(holder) ?? 0n) - (current.get(holder) ?? 0n);
      if (delta !== 0n) await move(s, { networkId: table.networkId, pool: table.pool, holder, delta }, at);
    }
  }
};

async function move(s: ProjectionState, d: ShareDelta, at: string): Promise<void> {
  const key = { network_id: d.networkId, pool: d.pool, holder: d.holder };
  const current = await s.get<MemberDoc>('members', key);
  const before = current?.shares ?? 0n;
  const after = before + d.delta;
  const joinedAt = before <= 0n && after > 0n ? at : (current?.joined_at ?? null);
  s.put('members', { ...key, shares: after, joined_at: joinedAt });
  const change = poolStatsChange(before, after);
  if (change.members === 0 && change.shares === 0n) return;
  const stats = await s.get<MemberStatsDoc>('stats', { network_id: d.networkId, pool: d.pool });
  s.put('stats', {
    network_id: d.networkId,
    pool: d.pool,
    member_count: (stats?.member_count ?? 0) + change.members,
    total_shares: (stats?.total_shares ?? 0n) + change.shares,
  });
}

/**
 * How one holder's move from `before` to `after` changes its pool's stats, which count only positive balances
 * (the same rows `WHERE shares > 0` would aggregate).
 */
export function poolStatsChange(before: bigint, after: bigint): { members: number; shares: bigint } {
  const positive = (v: bigint) => (v > 0n ? v : 0n);
  return { members: (after > 0n ? 1 : 0) - (before > 0n ? 1 : 0), shares: positive(after) - positive(before) };
}

export const membersProjection: ProjectionDefinition = {
  name: MEMBERS,
  // v2: V1 initial cap tables (PoolInitialized.initial_shares) and update_shares replacements.
  // v3: per-pool stats (member_count, total_shares) maintained beside the balances.
  // v4: a document reducer for both stores; an index in the members list's order.
  version: 4,
  collections: {
    members: {
      fields: MEMBER_FIELDS,
      key: ['network_id', 'pool', 'holder'],
      indexes: [{ keys: ['holder', 'network_id'] }, { keys: ['network_id', 'pool', 'shares desc', 'holder'], lookup: true }],
    },
    versions: POOL_VERSIONS,
    stats: {
      fields: { network_id: 'int', pool: 'text', member_count: 'int', total_shares: 'amount' },
      key: ['network_id', 'pool'],
    },
  },
  ...byEventType(Object.fromEntries(SHARE_EVENT_TYPES.map((type) => [type, apply]))),
};
