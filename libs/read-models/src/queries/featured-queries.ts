import { ApiView, computed, shownFields } from './api-view';
import { int, type QueryContext } from './query-context';
import { FEATURED_POOL_FIELDS, type FeaturedCandidate as Candidate } from './read-model-reader.port';
import { int as intSchema, str } from './response-schemas';

const featured = shownFields(FEATURED_POOL_FIELDS);

/** A featured pool as the API lists it, in the order it sends it; the reason is the pick's (an operator's or a rule's). */
export const FEATURED_POOL = new ApiView({
  address: featured.plain('address'),
  name: featured.plain('name'),
  ticker: featured.plain('ticker'),
  network_id: featured.plain('network_id'),
  estimated_apr: featured.number('estimated_apr'),
  member_count: computed(intSchema, (c: Candidate) => int(c.member_count)),
  featured_reason: computed(str, (_c: Candidate, pick: { readonly reason: string }) => pick.reason),
});
export type FeaturedPool = ReturnType<typeof FEATURED_POOL.item>;

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
    const rows = await this.ctx.reader.featuredCandidates(this.ctx.now(), q.networkId);
    const picked: FeaturedPool[] = [];
    const taken = new Set<string>();
    const key = (c: Candidate) => `${c.network_id}/${c.address}`;
    const take = (c: Candidate, reason: string) => {
      taken.add(key(c));
      picked.push(FEATURED_POOL.item(c, { reason }));
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
