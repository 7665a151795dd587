import type { ProjectionDefinition } from '@dob/projections';
import type { SqlExecutor } from '@dob/sql';
import { applyByType, type EventHandler } from './apply-by-type';
import { SHARE_EVENT_TYPES, poolVersionsDdl, shareDeltas } from './share-ledger';

/**
 * Share balances per (network, pool, holder). `joined_at` is when the balance last went from zero to positive;
 * holders whose balance returns to zero keep a row with 0 shares (queries show shares > 0 only).
 */
export const MEMBERS = 'pool_members';

const apply: EventHandler = async (tx, t, e) => {
  for (const d of await shareDeltas(tx, t.versions, e)) {
    const at = (e.data as { chain: { closed_at: string } }).chain.closed_at;
    await tx.query(
      `INSERT INTO ${t.members} (network_id, pool, holder, shares, joined_at)
       VALUES ($1, $2, $3, $4::numeric, CASE WHEN $4::numeric > 0 THEN $5::timestamptz END)
       ON CONFLICT (network_id, pool, holder) DO UPDATE
         SET shares = ${t.members}.shares + EXCLUDED.shares,
             joined_at = CASE WHEN ${t.members}.shares <= 0 AND ${t.members}.shares + EXCLUDED.shares > 0
                              THEN EXCLUDED.joined_at ELSE ${t.members}.joined_at END`,
      [d.networkId, d.pool, d.holder, d.delta.toString(), at],
    );
  }
};

export const membersProjection: ProjectionDefinition<SqlExecutor> = {
  name: MEMBERS,
  version: 1,
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
