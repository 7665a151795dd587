import type { Document } from 'mongodb';
import type { CampaignDoc } from '../projections/campaigns.projection';
import type { MemberDoc, MemberStatsDoc } from '../projections/members.projection';
import type { PoolDoc } from '../projections/pools.projection';
import type { ClaimDoc, RoundDoc, WithdrawalDoc } from '../projections/rounds.projection';
import { HISTORY_ENTRY_FIELDS, type HistoryEntryDoc } from '../projections/wallet-history.projection';
import {
  HOLDING_MEMBER_FIELDS,
  HOLDING_POOL_FIELDS,
  SCHEDULE_POOL_FIELDS,
  WALLET_ROUND_FIELDS,
  type HistoryRow,
  type HoldingRow,
  type SchedulePoolRow,
  type Slice,
  type WalletRoundRow,
  type PortfolioReads,
} from '../queries/read-model-reader.port';
import { POSITIVE, text, type Models, type MongoReads } from './mongo-models';
import { documentRow } from './document-rows';
import { toRoundRow } from './mongo-pool-reads';

const POOLS = ['pools', 'pools'] as const;
const ROUNDS = 'distribution_rounds';
const poolKey = (x: { network_id: number; pool: string }) => `${x.network_id}/${x.pool}`;

/** floor(total × shares / total_shares) as the contract computes it (exact, truncating like SQL's div()); null without shares. */
const estimate = (r: RoundDoc, shares: bigint): bigint | null => (r.total_shares === 0n ? null : (r.total_amount * shares) / r.total_shares);

/**
 * What the wallet holds, and the rounds and claims of those pools, in a few finds (the joins and correlated
 * subqueries of the SQL store become lookups by key here).
 */
async function walletView(m: Models, wallet: string, filter: Document) {
  const members = await m.find<MemberDoc>('pool_members', 'members', { holder: wallet, shares: POSITIVE, ...filter }, { network_id: 1, pool: 1 });
  const pools = await m.byKeys<PoolDoc>(
    ...POOLS,
    members.map((h) => ({ network_id: h.network_id, address: h.pool })),
  );
  const poolOf = (h: { network_id: number; pool: string }) => pools.get(m.id(...POOLS, { network_id: h.network_id, address: h.pool }));
  const mine = new Set(members.map(poolKey));
  const [rounds, claims] = await Promise.all([
    members.length ? m.find<RoundDoc>(ROUNDS, 'rounds', { pool: { $in: [...new Set(members.map((h) => h.pool))] } }) : Promise.resolve([]),
    m.find<ClaimDoc>(ROUNDS, 'claims', { holder: wallet }),
  ]);
  const claimed = new Set(claims.map((c) => `${poolKey(c)}/${c.round_id}`));
  return {
    members,
    poolOf,
    rounds: rounds.filter((r) => mine.has(poolKey(r))),
    claims,
    unclaimed: (r: RoundDoc) => !claimed.has(`${poolKey(r)}/${r.round_id}`),
  };
}

/** Each read takes the request's view of the serving collections first. */
export const mongoPortfolioReads: MongoReads<PortfolioReads> = {
  async holdings(m: Models, wallet: string, now: Date, networkId?: number, pool?: string): Promise<HoldingRow[]> {
    const filter: Document = {};
    if (networkId !== undefined) filter.network_id = networkId;
    if (pool !== undefined) filter.pool = pool;
    const w = await walletView(m, wallet, filter);
    const [stats, withdrawals] = await Promise.all([
      m.byKeys<MemberStatsDoc>(
        'pool_members',
        'stats',
        w.members.map((h) => ({ network_id: h.network_id, pool: h.pool })),
      ),
      m.find<WithdrawalDoc>(ROUNDS, 'withdrawals', { holder: wallet }),
    ]);
    const versionOf = new Map(w.rounds.map((r) => [`${poolKey(r)}/${r.round_id}`, r.pool_version]));
    const sum = <T>(xs: readonly T[], f: (x: T) => bigint) => xs.reduce((n, x) => n + f(x), 0n).toString();
    return w.members.flatMap((h) => {
      const p = w.poolOf(h);
      if (!p) return []; // the SQL store joins pools: no pool document, no holding
      const s = stats.get(m.id('pool_members', 'stats', { network_id: h.network_id, pool: h.pool }));
      const claims = w.claims.filter((c) => poolKey(c) === poolKey(h));
      const open = w.rounds.filter((r) => poolKey(r) === poolKey(h) && r.pool_version === '2' && toRoundRow(r, now).status === 'completed' && w.unclaimed(r));
      return [
        {
          ...documentRow(HOLDING_MEMBER_FIELDS, h),
          ...documentRow(HOLDING_POOL_FIELDS, p),
          total_shares: (s && s.member_count > 0 ? s.total_shares : 0n).toString(),
          earned: sum(claims, (c) => c.amount),
          v2_unclaimed: sum(open, (r) => estimate(r, h.shares) ?? 0n),
          v2_unclaimed_rounds: open.length,
          v1_credited: sum(
            claims.filter((c) => versionOf.get(`${poolKey(c)}/${c.round_id}`) === '1'),
            (c) => c.amount,
          ),
          v1_withdrawn: sum(
            withdrawals.filter((x) => poolKey(x) === poolKey(h)),
            (x) => x.amount,
          ),
        },
      ];
    });
  },

  async walletRounds(m: Models, wallet: string, now: Date, networkId?: number): Promise<WalletRoundRow[]> {
    const w = await walletView(m, wallet, networkId === undefined ? {} : { network_id: networkId });
    const shares = new Map(w.members.map((h) => [poolKey(h), h.shares]));
    const rows: WalletRoundRow[] = [];
    for (const r of w.rounds) {
      const status = toRoundRow(r, now).status;
      if (r.pool_version !== '2' || status === 'expired' || !w.unclaimed(r)) continue;
      rows.push({
        ...documentRow(WALLET_ROUND_FIELDS, r),
        name: w.poolOf(r)?.name ?? null,
        estimate: text(estimate(r, shares.get(poolKey(r))!)),
        status,
      });
    }
    // (claimable_from, network_id, pool, round_id), as the SQL store orders them.
    return rows.sort(
      (a, b) =>
        a.claimable_from.getTime() - b.claimable_from.getTime() ||
        a.network_id - b.network_id ||
        (a.pool < b.pool ? -1 : a.pool > b.pool ? 1 : 0) ||
        a.round_id - b.round_id,
    );
  },

  async scheduledPools(m: Models, wallet: string, networkId?: number): Promise<SchedulePoolRow[]> {
    const w = await walletView(m, wallet, networkId === undefined ? {} : { network_id: networkId });
    return w.members.flatMap((h) => {
      const p = w.poolOf(h);
      return p?.schedule_enabled ? [documentRow(SCHEDULE_POOL_FIELDS, p)] : [];
    });
  },

  async history(m: Models, wallet: string, filter: { networkId?: number; type?: string }, slice: Slice): Promise<{ rows: HistoryRow[]; total: number }> {
    const where: Document = { wallet };
    if (filter.networkId !== undefined) where.network_id = filter.networkId;
    if (filter.type) where.type = filter.type;
    const [entries, total] = await Promise.all([
      m.find<HistoryEntryDoc>('wallet_history', 'entries', where, { occurred_at: -1, chain_event_id: -1, event_id: 1, side: 1 }, slice),
      m.count('wallet_history', 'entries', where),
    ]);
    const pools = await m.byKeys<PoolDoc>(
      ...POOLS,
      entries.map((e) => ({ network_id: e.network_id, address: e.pool })),
    );
    return {
      rows: entries.map((e) => ({
        ...documentRow(HISTORY_ENTRY_FIELDS, e),
        name: pools.get(m.id(...POOLS, { network_id: e.network_id, address: e.pool }))?.name ?? null,
      })),
      total,
    };
  },

  async campaignTokens(m: Models): Promise<Map<string, string>> {
    const campaigns = await m.find<CampaignDoc>('crowdfunding', 'campaigns', {});
    return new Map(campaigns.map((c) => [`${c.network_id}/${c.address}`, c.payment_token]));
  },
};
