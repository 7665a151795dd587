import type { RecordedEvent } from '@dob/event-store';
import type { SqlExecutor } from '@dob/sql';

/**
 * Who holds how many shares. V1 pools keep the cap table in the splitter: `init` sets it (the indexer reads the
 * table from the init call's args into PoolInitialized.initial_shares, since the event carries only its length,
 * dob-contracts §2.4), SharesTransferred moves points, and `update_shares` replaces it (ShareTableUpdated.shares).
 * V2 pools keep balances in the participation token, so V2 balances come from ParticipationToken* events and V2's
 * SharesTransferred / ShareTableUpdated are only records (per the event catalog's note on SharesTransferred).
 * A pool's version is learned from PoolInitialized into a per-projection table (`versions`).
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

export interface ShareDelta {
  readonly networkId: number;
  readonly pool: string;
  readonly holder: string;
  readonly delta: bigint;
}

export function poolVersionsDdl(table: string): string {
  return `CREATE TABLE ${table} (network_id int NOT NULL, pool text NOT NULL, version text NOT NULL, PRIMARY KEY (network_id, pool))`;
}

/** The share movements one event makes (empty for events that move none); records pool versions on the way. */
export async function shareDeltas(tx: SqlExecutor, versions: string, e: RecordedEvent<any>): Promise<ShareDelta[]> {
  const d = e.data;
  const networkId: number = d.chain.network_id;
  switch (e.type) {
    case 'PoolInitialized':
      await tx.query(
        `INSERT INTO ${versions} (network_id, pool, version) VALUES ($1, $2, $3)
         ON CONFLICT (network_id, pool) DO UPDATE SET version = EXCLUDED.version`,
        [networkId, d.chain.contract_id, d.pool_version],
      );
      if (d.pool_version !== '1' || !Array.isArray(d.initial_shares)) return [];
      // A pool starts empty, so the initial table is a set of deltas from zero.
      return (d.initial_shares as { shareholder: string; share: string }[]).map((s) => ({
        networkId,
        pool: d.chain.contract_id,
        holder: s.shareholder,
        delta: BigInt(s.share),
      }));
    case 'SharesTransferred': {
      if (d.reason === 'crowdfunding_allocation') return []; // always a V2 PT mint, counted from the PT event
      const { rows } = await tx.query<{ version: string }>(
        `SELECT version FROM ${versions} WHERE network_id = $1 AND pool = $2`,
        [networkId, d.pool],
      );
      if (rows[0]?.version === '2') return [];
      const shares = BigInt(d.shares);
      const out: ShareDelta[] = [{ networkId, pool: d.pool, holder: d.to, delta: shares }];
      if (d.from) out.unshift({ networkId, pool: d.pool, holder: d.from, delta: -shares });
      return out;
    }
    case 'ParticipationTokenMinted':
      return d.pool ? [{ networkId, pool: d.pool, holder: d.to, delta: BigInt(d.amount) }] : [];
    case 'ParticipationTokenTransferred':
      return d.pool
        ? [
            { networkId, pool: d.pool, holder: d.from, delta: -BigInt(d.amount) },
            { networkId, pool: d.pool, holder: d.to, delta: BigInt(d.amount) },
          ]
        : [];
    case 'ParticipationTokenBurned':
    case 'ParticipationTokenClawedBack':
      return d.pool ? [{ networkId, pool: d.pool, holder: d.from, delta: -BigInt(d.amount) }] : [];
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
 * V1 `update_shares` replaces the whole cap table (dob-contracts §2.2): the new table when the event carries it
 * (null for V2, whose PT mints/clawbacks carry the change, and when the indexer could not read the call).
 */
export async function shareTableReplacement(tx: SqlExecutor, versions: string, e: RecordedEvent<any>): Promise<ShareTableReplacement | null> {
  const d = e.data;
  if (e.type !== 'ShareTableUpdated' || !Array.isArray(d.shares)) return null;
  const networkId: number = d.chain.network_id;
  const pool: string = d.chain.contract_id;
  const { rows } = await tx.query<{ version: string }>(`SELECT version FROM ${versions} WHERE network_id = $1 AND pool = $2`, [networkId, pool]);
  if (rows[0]?.version !== '1') return null;
  const holders = new Map<string, bigint>();
  for (const s of d.shares as { shareholder: string; share: string }[]) holders.set(s.shareholder, (holders.get(s.shareholder) ?? 0n) + BigInt(s.share));
  return { networkId, pool, holders };
}
