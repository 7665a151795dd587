import type { RecordedChainEvent } from '@dob/event-store';
import type { CollectionSpec, ProjectionState } from '@dob/projections';

/**
 * Who holds how many shares. V1 pools keep the cap table in the splitter: `init` sets it (the indexer reads the
 * table from the init call's args into PoolInitialized.initial_shares, since the event carries only its length,
 * docs/contracts.md §2.4), SharesTransferred moves points, and `update_shares` replaces it (ShareTableUpdated.shares).
 * V2 pools keep balances in the participation token, so V2 balances come from ParticipationToken* events and V2's
 * SharesTransferred / ShareTableUpdated are only records (per the event catalog's note on SharesTransferred).
 * A pool's version is learned from PoolInitialized into a per-projection collection (`versions`).
 */
export const SHARE_EVENT_TYPES = [
  'PoolInitialized',
  'ShareTableUpdated',
  'SharesTransferred',
  'ParticipationTokenMinted',
  'ParticipationTokenTransferred',
  'ParticipationTokenBurned',
  'ParticipationTokenClawedBack',
] as const;
export type ShareEventType = (typeof SHARE_EVENT_TYPES)[number];

export interface ShareDelta {
  readonly networkId: number;
  readonly pool: string;
  readonly holder: string;
  readonly delta: bigint;
}

export const POOL_VERSIONS: CollectionSpec = { fields: { network_id: 'int', pool: 'text', version: 'text' }, key: ['network_id', 'pool'] };

type VersionDoc = { network_id: number; pool: string; version: string };

const poolVersion = async (s: ProjectionState, networkId: number, pool: string): Promise<string | undefined> =>
  (await s.get<VersionDoc>('versions', { network_id: networkId, pool }))?.version;

/** The share movements one event makes (empty for events that move none); records pool versions on the way. */
export async function shareDeltas(s: ProjectionState, e: RecordedChainEvent<ShareEventType>): Promise<ShareDelta[]> {
  const networkId = e.data.chain.network_id;
  switch (e.type) {
    case 'PoolInitialized': {
      const d = e.data;
      s.put('versions', { network_id: networkId, pool: d.chain.contract_id, version: d.pool_version });
      if (d.pool_version !== '1' || !Array.isArray(d.initial_shares)) return [];
      // A pool starts empty, so the initial table is a set of deltas from zero.
      return d.initial_shares.map((x) => ({ networkId, pool: d.chain.contract_id, holder: x.shareholder, delta: BigInt(x.share) }));
    }
    case 'SharesTransferred': {
      const d = e.data;
      if (d.reason === 'crowdfunding_allocation') return []; // always a V2 PT mint, counted from the PT event
      if ((await poolVersion(s, networkId, d.pool)) === '2') return [];
      const shares = BigInt(d.shares);
      const out: ShareDelta[] = [{ networkId, pool: d.pool, holder: d.to, delta: shares }];
      if (d.from) out.unshift({ networkId, pool: d.pool, holder: d.from, delta: -shares });
      return out;
    }
    case 'ParticipationTokenMinted': {
      const d = e.data;
      return d.pool ? [{ networkId, pool: d.pool, holder: d.to, delta: BigInt(d.amount) }] : [];
    }
    case 'ParticipationTokenTransferred': {
      const d = e.data;
      return d.pool
        ? [
            { networkId, pool: d.pool, holder: d.from, delta: -BigInt(d.amount) },
            { networkId, pool: d.pool, holder: d.to, delta: BigInt(d.amount) },
          ]
        : [];
    }
    case 'ParticipationTokenBurned':
    case 'ParticipationTokenClawedBack': {
      const d = e.data;
      return d.pool ? [{ networkId, pool: d.pool, holder: d.from, delta: -BigInt(d.amount) }] : [];
    }
    default:
      return [];
  }
}

export interface ShareTableReplacement {
  readonly networkId: number;
  readonly pool: string;
  readonly holders: ReadonlyMap<string, bigint>;
}

/**
 * V1 `update_shares` replaces the whole cap table (docs/contracts.md §2.2): the new table when the event carries it
 * (null for V2, whose PT mints/clawbacks carry the change, and when the indexer could not read the call).
 */
export async function shareTableReplacement(s: ProjectionState, e: RecordedChainEvent<ShareEventType>): Promise<ShareTableReplacement | null> {
  if (e.type !== 'ShareTableUpdated' || !Array.isArray(e.data.shares)) return null;
  const networkId = e.data.chain.network_id;
  const pool = e.data.chain.contract_id;
  if ((await poolVersion(s, networkId, pool)) !== '1') return null;
  const holders = new Map<string, bigint>();
  for (const x of e.data.shares) holders.set(x.shareholder, (holders.get(x.shareholder) ?? 0n) + BigInt(x.share));
  return { networkId, pool, holders };
}
