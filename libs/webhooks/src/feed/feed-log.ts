import type { GlobalPosition, RecordedEvent } from '@dob/event-store';
import type { SqlDatabase, SqlExecutor } from '@dob/sql';
import type { Notification } from '../fanout/payloads';

/** NOTIFY channel the fan-out signals after it added feed entries (delivered at COMMIT, so a woken reader sees them). */
export const FEED_CHANNEL = 'agent_event_feed_appended';

/** One entry of the agents' event feed: a webhook notification and the $all position of the event it came from. */
export interface FeedEntry {
  readonly position: GlobalPosition;
  readonly event: string;
  readonly timestamp: string;
  readonly data: Record<string, unknown>;
}

export interface FeedFilter {
  readonly types?: readonly string[];
  readonly pools?: readonly string[];
  /** Only events naming this wallet (seller, buyer, sender, receiver, creator). */
  readonly party?: string;
}

/** The addresses a notification names besides the pool and the sale (those are filtered by `pools`). */
function partiesOf(data: Record<string, unknown>): string[] {
  return Object.entries(data)
    .filter(([k, v]) => k.endsWith('_address') && k !== 'pool_address' && k !== 'sale_address' && typeof v === 'string')
    .map(([, v]) => v as string);
}

/**
 * Written by the fan-out in the transaction of its checkpoint (so a replay adds nothing: ids and positions are
 * unique), followed by a NOTIFY for readers.
 */
export async function appendToFeed(tx: SqlExecutor, notes: readonly { event: RecordedEvent; note: Notification }[]): Promise<void> {
  if (notes.length === 0) return;
  const params: unknown[] = [];
  const rows = notes.map(({ event, note }) => {
    const pool = typeof note.data.pool_address === 'string' ? note.data.pool_address : null;
    const body = JSON.stringify({ timestamp: note.timestamp, data: note.data });
    params.push(
      event.position.commit.toString(),
      event.position.prepare.toString(),
      event.id,
      note.event,
      pool,
      partiesOf(note.data),
      body,
      event.recordedAt.toISOString(),
    );
    const b = params.length - 8;
    return `($${b + 1}::int8, $${b + 2}::int8, $${b + 3}, $${b + 4}, $${b + 5}, $${b + 6}::text[], $${b + 7}, $${b + 8}::timestamptz)`;
  });
  await tx.query(
    `INSERT INTO agent_event_feed (commit_pos, prepare_pos, event_id, event, pool_address, parties, body, recorded_at)
     VALUES ${rows.join(', ')} ON CONFLICT DO NOTHING`,
    params,
  );
  await tx.query(`SELECT pg_notify($1, '')`, [FEED_CHANNEL]);
}

interface FeedRow {
  commit_pos: string;
  prepare_pos: string;
  event: string;
  body: string;
}

/** Reads of the feed table, by position. */
export class SqlFeedLog {
  constructor(private readonly db: SqlDatabase) {}

  async after(after: GlobalPosition, limit: number, filter: FeedFilter): Promise<FeedEntry[]> {
    const params: unknown[] = [after.commit.toString(), after.prepare.toString(), limit];
    const where = ['(commit_pos, prepare_pos) > ($1::int8, $2::int8)'];
    if (filter.types?.length) where.push(`event = ANY($${params.push([...filter.types])}::text[])`);
    if (filter.pools?.length) where.push(`pool_address = ANY($${params.push([...filter.pools])}::text[])`);
    if (filter.party) where.push(`$${params.push(filter.party)} = ANY(parties)`);
    const { rows } = await this.db.query<FeedRow>(
      `SELECT commit_pos::text AS commit_pos, prepare_pos::text AS prepare_pos, event, body FROM agent_event_feed
        WHERE ${where.join(' AND ')} ORDER BY commit_pos, prepare_pos LIMIT $3`,
      params,
    );
    return rows.map((r) => {
      const body = JSON.parse(r.body) as { timestamp: string; data: Record<string, unknown> };
      return { position: { commit: BigInt(r.commit_pos), prepare: BigInt(r.prepare_pos) }, event: r.event, ...body };
    });
  }

  /** The last position in the feed (START-like `null` when empty). */
  async head(): Promise<GlobalPosition | null> {
    const { rows } = await this.db.query<{ c: string; p: string }>(
      `SELECT commit_pos::text AS c, prepare_pos::text AS p FROM agent_event_feed ORDER BY commit_pos DESC, prepare_pos DESC LIMIT 1`,
    );
    return rows[0] ? { commit: BigInt(rows[0].c), prepare: BigInt(rows[0].p) } : null;
  }

  /** Entries at or before this position were pruned (null: nothing was). */
  async horizon(): Promise<GlobalPosition | null> {
    const { rows } = await this.db.query<{ c: string; p: string }>(`SELECT commit_pos::text AS c, prepare_pos::text AS p FROM agent_event_feed_horizon`);
    return rows[0] ? { commit: BigInt(rows[0].c), prepare: BigInt(rows[0].p) } : null;
  }

  /** Drops entries recorded before `before` and moves the horizon past them; returns how many were dropped. */
  async prune(before: Date): Promise<number> {
    return this.db.transaction(async (tx) => {
      const { rows } = await tx.query<{ c: string; p: string; n: string }>(
        `WITH gone AS (DELETE FROM agent_event_feed WHERE recorded_at < $1 RETURNING commit_pos, prepare_pos)
         SELECT (SELECT count(*) FROM gone)::text AS n, c::text AS c, p::text AS p FROM
           (SELECT commit_pos AS c, prepare_pos AS p FROM gone ORDER BY commit_pos DESC, prepare_pos DESC LIMIT 1) last`,
        [before.toISOString()],
      );
      const last = rows[0];
      if (!last) return 0;
      await tx.query(
        `INSERT INTO agent_event_feed_horizon (id, commit_pos, prepare_pos) VALUES (1, $1::int8, $2::int8)
         ON CONFLICT (id) DO UPDATE SET commit_pos = EXCLUDED.commit_pos, prepare_pos = EXCLUDED.prepare_pos
         WHERE (agent_event_feed_horizon.commit_pos, agent_event_feed_horizon.prepare_pos) < (EXCLUDED.commit_pos, EXCLUDED.prepare_pos)`,
        [last.c, last.p],
      );
      return Number(last.n);
    });
  }
}
