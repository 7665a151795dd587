import { decimalKeyPath, type Doc } from '@dob/projections';
import type { Document, Sort } from 'mongodb';
import { CAMPAIGN_FIELDS, type CampaignDoc, type ContributorDoc } from '../projections/campaigns.projection';
import { MEMBER_FIELDS, type MemberDoc, type MemberStatsDoc } from '../projections/members.projection';
import { POOL_EVENT_FIELDS, type PoolEventDoc } from '../projections/pool-events.projection';
import { POOL_FIELDS, POOL_LIST_ORDERS, type PoolDoc } from '../projections/pools.projection';
import { documentRow } from './document-rows';
import { ROUND_FIELDS, type RoundDoc } from '../projections/rounds.projection';
import {
  FEATURED_POOL_FIELDS,
  type CampaignRow,
  type EventRow,
  type FeaturedCandidate,
  type MemberRow,
  type PoolFilter,
  type PoolRow,
  type PoolSort,
  type RoundRow,
  type RoundStatus,
  type Slice,
  type PoolReads,
} from '../queries/read-model-reader.port';
import { POSITIVE, containsAsciiInsensitive, type Models, type MongoReads } from './mongo-models';

const POOLS = ['pools', 'pools'] as const;
const STATS = ['pool_members', 'stats'] as const;
const TIE = { network_id: 1, address: 1 } as const;
const DAY_MS = 86_400_000;

/** Member stats of pools with members (the SQL store's `member_count > 0` join), by pool id. */
async function memberStats(m: Models, pools: readonly PoolDoc[]): Promise<Map<string, MemberStatsDoc>> {
  const stats = await m.byKeys<MemberStatsDoc>(
    ...STATS,
    pools.map((p) => ({ network_id: p.network_id, pool: p.address })),
  );
  for (const [id, s] of stats) if (s.member_count <= 0) stats.delete(id);
  return stats;
}

async function toPoolRows(m: Models, pools: readonly PoolDoc[]): Promise<PoolRow[]> {
  const stats = await memberStats(m, pools);
  return Promise.all(
    pools.map(async (p) => {
      const s = stats.get(m.id(...STATS, { network_id: p.network_id, pool: p.address }));
      return {
        ...documentRow(POOL_FIELDS, p),
        member_count: s?.member_count ?? 0,
        total_shares: (s?.total_shares ?? 0n).toString(),
        token_to_distribute_symbol: await m.symbolOf(p.network_id, p.token_to_distribute),
        distribution_token_symbol: await m.symbolOf(p.network_id, p.distribution_token),
      };
    }),
  );
}

/**
 * A page sorted on `field` with nulls last whatever the direction (SQL's NULLS LAST; MongoDB sorts nulls lowest):
 * the non-null documents in order, then the null ones by the tie-breakers.
 */
async function nullsLastPage(m: Models, filter: Document, field: string, sortPath: string, direction: 1 | -1, slice: Slice): Promise<PoolDoc[]> {
  const present = { ...filter, [field]: { $ne: null } };
  const before = await m.count(...POOLS, present);
  const page = slice.offset < before ? await m.find<PoolDoc>(...POOLS, present, { [sortPath]: direction, ...TIE }, slice) : [];
  if (page.length === slice.limit) return page;
  const offset = Math.max(0, slice.offset - before);
  return [...page, ...(await m.find<PoolDoc>(...POOLS, { ...filter, [field]: null }, TIE, { offset, limit: slice.limit - page.length }))];
}

function roundStatus(r: RoundDoc, now: Date): RoundStatus {
  if (new Date(r.claimable_from) > now) return 'pending';
  if (r.expires_at !== null && new Date(r.expires_at) < now) return 'expired';
  return 'completed';
}

/** The filter selecting rounds of one status at `now` (the same partition roundStatus makes). */
export function roundStatusFilter(status: RoundStatus, now: Date): Document {
  if (status === 'pending') return { claimable_from: { $gt: now } };
  if (status === 'expired') return { claimable_from: { $lte: now }, expires_at: { $ne: null, $lt: now } };
  return { claimable_from: { $lte: now }, $or: [{ expires_at: null }, { expires_at: { $gte: now } }] };
}

export function toRoundRow(r: RoundDoc, now: Date): RoundRow {
  return { ...documentRow(ROUND_FIELDS, r), status: roundStatus(r, now) };
}

/** Each read takes the request's view of the serving collections first. */
export const mongoPoolReads: MongoReads<PoolReads> = {
  async poolNetworks(m: Models, address: string, networkId?: number): Promise<number[]> {
    const rows = await m.find<PoolDoc>(...POOLS, { address, ...(networkId === undefined ? {} : { network_id: networkId }) }, { network_id: 1 });
    return rows.map((r) => r.network_id);
  },

  async poolPage(m: Models, filter: PoolFilter, sort: PoolSort, slice: Slice): Promise<{ rows: PoolRow[]; total: number }> {
    const where: Document = { listed: true };
    if (filter.search) {
      const like = containsAsciiInsensitive(filter.search);
      where.$or = [{ name: like }, { ticker: like }];
    }
    if (filter.networkId !== undefined) where.network_id = filter.networkId;
    if (filter.accessType) where.access_type = filter.accessType;
    const total = await m.count(...POOLS, where);
    let page: PoolDoc[];
    const { by, direction } = POOL_LIST_ORDERS[sort];
    if (by !== 'member_count') {
      const path = POOL_FIELDS[by] === 'decimal?' ? decimalKeyPath(by) : by;
      // Descending: MongoDB's nulls-lowest already puts them last; ascending takes them after the others.
      page =
        direction === 'desc'
          ? await m.find<PoolDoc>(...POOLS, where, { [path]: -1, ...TIE } as Sort, slice)
          : await nullsLastPage(m, where, by, path, 1, slice);
    } else {
      // Member counts live in another projection (no $lookup on FerretDB): rank every matching pool here.
      const all = await m.find<PoolDoc>(...POOLS, where, TIE);
      const stats = await memberStats(m, all);
      const count = (p: PoolDoc) => stats.get(m.id(...STATS, { network_id: p.network_id, pool: p.address }))?.member_count ?? 0;
      const sign = direction === 'desc' ? -1 : 1;
      page = all.sort((a, b) => sign * (count(a) - count(b))).slice(slice.offset, slice.offset + slice.limit); // stable: ties stay in TIE order
    }
    return { rows: await toPoolRows(m, page), total };
  },

  async poolRow(m: Models, networkId: number, address: string): Promise<PoolRow | null> {
    const p = await m.get<PoolDoc>(...POOLS, { network_id: networkId, address });
    return p?.listed ? (await toPoolRows(m, [p]))[0]! : null;
  },

  async members(m: Models, networkId: number, pool: string, slice: Slice): Promise<{ rows: MemberRow[]; total: number; supply: bigint }> {
    const [rows, stats] = await Promise.all([
      m.find<MemberDoc>('pool_members', 'members', { network_id: networkId, pool, shares: POSITIVE }, { shares: -1, holder: 1 }, slice),
      m.get<MemberStatsDoc>(...STATS, { network_id: networkId, pool }),
    ]);
    // The stats document is the aggregate of the positive balances (maintained with every move).
    const total = stats && stats.member_count > 0 ? stats.member_count : 0;
    return {
      rows: rows.map((r) => documentRow(MEMBER_FIELDS, r)),
      supply: rows.length && stats ? stats.total_shares : 0n,
      total,
    };
  },

  async rounds(
    m: Models,
    networkId: number,
    pool: string,
    now: Date,
    status: RoundStatus | undefined,
    slice: Slice,
  ): Promise<{ rows: RoundRow[]; total: number }> {
    const filter = { network_id: networkId, pool, ...(status ? roundStatusFilter(status, now) : {}) };
    const [rows, total] = await Promise.all([
      m.find<RoundDoc>('distribution_rounds', 'rounds', filter, { created_at: -1, round_id: -1 }, slice),
      m.count('distribution_rounds', 'rounds', filter),
    ]);
    return { rows: rows.map((r) => toRoundRow(r, now)), total };
  },

  async poolEvents(m: Models, networkId: number, pool: string, eventType: string | undefined, slice: Slice): Promise<{ rows: EventRow[]; total: number }> {
    const filter = { network_id: networkId, pool, ...(eventType ? { event_type: eventType } : {}) };
    const [rows, total] = await Promise.all([
      m.find<PoolEventDoc>('pool_events', 'events', filter, { date: -1, chain_event_id: -1, event_id: -1 }, slice),
      m.count('pool_events', 'events', filter),
    ]);
    return { rows: rows.map((r) => ({ ...documentRow(POOL_EVENT_FIELDS, r), event_type: r.event_type, amount_kind: r.amount_kind })), total };
  },

  async featuredCandidates(m: Models, now: Date, networkId?: number): Promise<FeaturedCandidate[]> {
    const where = { listed: true, ...(networkId === undefined ? {} : { network_id: networkId }) };
    const pools = await m.find<PoolDoc>(...POOLS, where, TIE);
    const [stats, sales, overrides] = await Promise.all([
      memberStats(m, pools),
      m.find<{ network_id: number; pool: string; total_price: bigint } & Doc>('marketplace', 'sales', { sold_at: { $gt: new Date(now.getTime() - DAY_MS) } }),
      m.db.collection<FeaturedOverrideDoc>(FEATURED_OVERRIDES).find({}).toArray(),
    ]);
    const volume = new Map<string, bigint>();
    for (const s of sales) volume.set(`${s.network_id}/${s.pool}`, (volume.get(`${s.network_id}/${s.pool}`) ?? 0n) + s.total_price);
    const override = new Map(overrides.map((o) => [`${o.network_id}/${o.address}`, o]));
    return pools.map((p) => {
      const key = `${p.network_id}/${p.address}`;
      const o = override.get(key);
      return {
        ...documentRow(FEATURED_POOL_FIELDS, p),
        member_count: stats.get(m.id(...STATS, { network_id: p.network_id, pool: p.address }))?.member_count ?? 0,
        volume_24h: (volume.get(key) ?? 0n).toString(),
        override_reason: o?.reason ?? null,
        override_position: o?.position ?? null,
      };
    });
  },

  async campaigns(m: Models, now: Date, q: { networkId?: number; status: 'active' | 'all' }): Promise<CampaignRow[]> {
    const where: Document = q.networkId === undefined ? {} : { network_id: q.networkId };
    if (q.status === 'active') Object.assign(where, { status: 'fundraising', deadline: { $gt: now } });
    const campaigns = await m.find<CampaignDoc>('crowdfunding', 'campaigns', where, TIE);
    const [contributors, pools] = await Promise.all([
      m.find<ContributorDoc>('crowdfunding', 'contributors', { shares: POSITIVE }),
      m.byKeys<PoolDoc>(
        ...POOLS,
        campaigns.flatMap((c) => [
          { network_id: c.network_id, address: c.address },
          ...(c.splitter ? [{ network_id: c.network_id, address: c.splitter }] : []),
        ]),
      ),
    ]);
    const counts = new Map<string, number>();
    for (const x of contributors) counts.set(`${x.network_id}/${x.campaign}`, (counts.get(`${x.network_id}/${x.campaign}`) ?? 0) + 1);
    const pool = (networkId: number, address: string | null) => (address ? pools.get(m.id(...POOLS, { network_id: networkId, address })) : undefined);
    return campaigns.map((c) => {
      const own = pool(c.network_id, c.address);
      const splitter = pool(c.network_id, c.splitter);
      return {
        ...documentRow(CAMPAIGN_FIELDS, c),
        name: own?.name ?? splitter?.name ?? null,
        ticker: own?.ticker ?? splitter?.ticker ?? null,
        contributors: counts.get(`${c.network_id}/${c.address}`) ?? 0,
        active: c.status === 'fundraising' && new Date(c.deadline) > now,
      };
    });
  },
};

/** Operator picks (service-owned, libs/read-models featured): the MongoDB twin of the SQL table. */
export const FEATURED_OVERRIDES = 'featured_pool_overrides';
export interface FeaturedOverrideDoc {
  _id: string;
  network_id: number;
  address: string;
  reason: string;
  position: number;
}
