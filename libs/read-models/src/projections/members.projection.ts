import type { ProjectionDefinition } from '@dob/projections';
import type { SqlExecutor } from '@dob/sql';
import { applyByType, type EventHandler } from './apply-by-type';
import { SHARE_EVENT_TYPES, poolVersionsDdl, shareDeltas, shareTableReplacement, type ShareDelta } from './share-ledger';

/**
 * Share balances per (network, pool, holder). `joined_at` is when the balance last went from zero to positive;
 * holders whose balance returns to zero keep a row with 0 shares (queries show shares > 0 only).
 */
export const MEMBERS = 'pool_members';

const apply: EventHandler = async (tx, t, e) => {
  const at = (e.data as { chain: { closed_at: string } }).chain.closed_at;
  for (const d of await shareDeltas(tx, t.versions, e)) await move(tx, t.members, d, at);
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
      if (delta !== 0n) await move(tx, t.members, { networkId: table.networkId, pool: table.pool, holder, delta }, at);
    }
  }
};

async function move(tx: SqlExecutor, members: string, d: ShareDelta, at: string): Promise<void> {
  await tx.query(
    `INSERT INTO ${members} (network_id, pool, holder, shares, joined_at)
     VALUES ($1, $2, $3, $4::numeric, CASE WHEN $4::numeric > 0 THEN $5::timestamptz END)
     ON CONFLICT (network_id, pool, holder) DO UPDATE
       SET shares = ${members}.shares + EXCLUDED.shares,
           joined_at = CASE WHEN ${members}.shares <= 0 AND ${members}.shares + EXCLUDED.shares > 0
                            THEN EXCLUDED.joined_at ELSE ${members}.joined_at END`,
    [d.networkId, d.pool, d.holder, d.delta.toString(), at],
  );
}

export const membersProjection: ProjectionDefinition<SqlExecutor> = {
  name: MEMBERS,
  // v2: V1 initial cap tables (PoolInitialized.initial_shares) and update_shares replacements.
  version: 2,
  eventTypes: SHARE_EVENT_TYPES,
  tables: ['members', 'versions'],
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
    ${poolVersionsDdl(t.versions)};`);
  },
  apply: applyByType(Object.fromEntries(SHARE_EVENT_TYPES.map((type) => [type, apply]))),
};
