import type { ProjectionDefinition, ProjectionTables } from '@dob/projections';
import type { SqlExecutor } from '@dob/sql';
import { applyByType, type EventHandler } from './apply-by-type';
import { SHARE_EVENT_TYPES, poolVersionsDdl, shareDeltas, shareTableReplacement, type ShareDelta } from './share-ledger';

/**
 * Share balances per (network, pool, holder). `joined_at` is when the balance last went from zero to positive;
 * holders whose balance returns to zero keep a row with 0 shares (queries show shares > 0 only).
 * `stats` keeps per pool what the pool lists sort and show — holders with a positive balance and the sum of their
 * shares — maintained with every balance move, so a list never aggregates the whole members table per request.
 */
export const MEMBERS = 'pool_members';

const apply: EventHandler = async (tx, t, e) => {
  const at = (e.data as { chain: { closed_at: string } }).chain.closed_at;
  for (const d of await shareDeltas(tx, t.versions, e)) await move(tx, t, d, at);
  const table = await shareTableReplacement(tx, t.versions, e);
  if (table) {
    // A replaced table is applied as the deltas from the current balances, so joined_at keeps its meaning.
    const { rows } = await tx.query<{ holder: string; shares: string }>(
      `SELECT holder, shares::text AS shares FROM ${t.members} WHERE network_id = $1 AND pool = $2 ORDER BY holder`,
      [table.networkId, table.pool],
    );
    const current = new Map(rows.map((r) => [r.holder, BigInt(r.shares)]));
    const holders = [...new Set([...current.keys(), ...table.holders.keys()])].sort();
    for (const holder of holders) {
      const delta = (table.holders.get(holder) ?? 0n) - (current.get(holder) ?? 0n);
      if (delta !== 0n) await move(tx, t, { networkId: table.networkId, pool: table.pool, holder, delta }, at);
    }
  }
};

async function move(tx: SqlExecutor, t: ProjectionTables, d: ShareDelta, at: string): Promise<void> {
  const { rows } = await tx.query<{ shares: string }>(
    `INSERT INTO ${t.members} (network_id, pool, holder, shares, joined_at)
     VALUES ($1, $2, $3, $4::numeric, CASE WHEN $4::numeric > 0 THEN $5::timestamptz END)
     ON CONFLICT (network_id, pool, holder) DO UPDATE
       SET shares = ${t.members}.shares + EXCLUDED.shares,
           joined_at = CASE WHEN ${t.members}.shares <= 0 AND ${t.members}.shares + EXCLUDED.shares > 0
                            THEN EXCLUDED.joined_at ELSE ${t.members}.joined_at END
     RETURNING shares::text AS shares`,
    [d.networkId, d.pool, d.holder, d.delta.toString(), at],
  );
  // RETURNING gives the balance after the move (the inserted row when the holder is new, i.e. before = 0).
  const after = BigInt(rows[0]!.shares);
  const change = poolStatsChange(after - d.delta, after);
  if (change.members === 0 && change.shares === 0n) return;
  await tx.query(
    `INSERT INTO ${t.stats} (network_id, pool, member_count, total_shares) VALUES ($1, $2, $3, $4::numeric)
     ON CONFLICT (network_id, pool) DO UPDATE
       SET member_count = ${t.stats}.member_count + EXCLUDED.member_count,
           total_shares = ${t.stats}.total_shares + EXCLUDED.total_shares`,
    [d.networkId, d.pool, change.members, change.shares.toString()],
  );
}

/**
 * How one holder's move from `before` to `after` changes its pool's stats, which count only positive balances
 * (the same rows `WHERE shares > 0` would aggregate).
 */
export function poolStatsChange(before: bigint, after: bigint): { members: number; shares: bigint } {
  const positive = (v: bigint) => (v > 0n ? v : 0n);
  return { members: (after > 0n ? 1 : 0) - (before > 0n ? 1 : 0), shares: positive(after) - positive(before) };
}

export const membersProjection: ProjectionDefinition<SqlExecutor> = {
  name: MEMBERS,
  // v2: V1 initial cap tables (PoolInitialized.initial_shares) and update_shares replacements.
  // v3: per-pool stats (member_count, total_shares) maintained beside the balances.
  version: 3,
  eventTypes: SHARE_EVENT_TYPES,
  tables: ['members', 'versions', 'stats'],
  async setup(tx, t) {
    await tx.exec(`CREATE TABLE ${t.members} (
      network_id int         NOT NULL,
      pool       text        NOT NULL,
      holder     text        NOT NULL,
      shares     numeric     NOT NULL,
      joined_at  timestamptz,
      PRIMARY KEY (network_id, pool, holder)
    );
    CREATE INDEX ON ${t.members} (holder, network_id);
    CREATE TABLE ${t.stats} (
      network_id   int     NOT NULL,
      pool         text    NOT NULL,
      member_count int     NOT NULL,
      total_shares numeric NOT NULL,
      PRIMARY KEY (network_id, pool)
    );
    ${poolVersionsDdl(t.versions)};`);
  },
  apply: applyByType(Object.fromEntries(SHARE_EVENT_TYPES.map((type) => [type, apply]))),
};
