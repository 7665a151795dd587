import { FEATURED_OVERRIDES_TABLE } from '../featured/featured-overrides';
import { MEMBER_STATS, V, int, type QueryContext } from './query-context';

export interface FeaturedPool {
  address: string;
  name: string | null;
  ticker: string | null;
  network_id: number;
  estimated_apr: number | null;
  member_count: number;
  featured_reason: string;
}

interface Candidate {
  network_id: number;
  address: string;
  name: string | null;
  ticker: string | null;
  estimated_apr: string | null;
  member_count: number;
  volume_24h: string;
  override_reason: string | null;
  override_position: number | null;
}

/**
 * Featured pools: operator overrides first (their own reason, by position), then one pick per rule — highest
 * estimated APR, most members, top 24 h marketplace volume — each the best pool not already featured, with ties
 * broken by (network_id, address) so the list is stable. Rules with no qualifying pool (no APR, no members, no
 * sales in 24 h) pick nothing. Like the stats windows, the 24 h window has no upper bound: sale times are ledger
 * close times, which may run ahead of this server's clock (a devnet with short ledgers does), and a fresh sale must
 * count at once rather than when the wall clock catches up.
 */
export class FeaturedQueries {
  constructor(private readonly ctx: QueryContext) {}

  async list(q: { networkId?: number }): Promise<FeaturedPool[]> {
    const params: unknown[] = [this.ctx.now().toISOString()];
    let filter = '';
    if (q.networkId !== undefined) {
      params.push(q.networkId);
      filter = `AND p.network_id = $2`;
    }
    const { rows } = await this.ctx.db.query<Candidate>(
      `SELECT p.network_id, p.address, p.name, p.ticker, p.estimated_apr::text AS estimated_apr,
              COALESCE(m.member_count, 0) AS member_count, COALESCE(s.volume, 0)::text AS volume_24h,
              o.reason AS override_reason, o.position AS override_position
         FROM ${V.pools} p
         LEFT JOIN (${MEMBER_STATS}) m ON m.network_id = p.network_id AND m.pool = p.address
         LEFT JOIN (SELECT network_id, pool, SUM(total_price) AS volume FROM ${V.sales}
                     WHERE sold_at > $1::timestamptz - interval '24 hours'
                     GROUP BY network_id, pool) s ON s.network_id = p.network_id AND s.pool = p.address
         LEFT JOIN ${FEATURED_OVERRIDES_TABLE} o ON o.network_id = p.network_id AND o.address = p.address
        WHERE p.listed ${filter}
        ORDER BY p.network_id, p.address`,
      params,
    );
    const picked: FeaturedPool[] = [];
    const taken = new Set<string>();
    const key = (c: Candidate) => `${c.network_id}/${c.address}`;
    const take = (c: Candidate, reason: string) => {
      taken.add(key(c));
      picked.push({
        address: c.address,
        name: c.name,
        ticker: c.ticker,
        network_id: c.network_id,
        estimated_apr: c.estimated_apr === null ? null : Number(c.estimated_apr),
        member_count: int(c.member_count),
        featured_reason: reason,
      });
    };
    const overrides = rows.filter((c) => c.override_reason !== null).sort((a, b) => a.override_position! - b.override_position!);
    for (const c of overrides) take(c, c.override_reason!);
    const best = (score: (c: Candidate) => bigint | number | null, reason: string) => {
      let top: Candidate | null = null;
      let topScore: bigint | number | null = null;
      for (const c of rows) {
        const s = score(c);
        if (taken.has(key(c)) || s === null || s <= 0) continue;
        if (topScore === null || s > topScore) [top, topScore] = [c, s]; // rows are in (network, address) order
      }
      if (top) take(top, reason);
    };
    best((c) => (c.estimated_apr === null ? null : Number(c.estimated_apr)), 'Highest estimated APR');
    best((c) => int(c.member_count), 'Most members');
    best((c) => BigInt(c.volume_24h.split('.')[0]!), 'Top 24h trading volume');
    return picked;
  }
}
