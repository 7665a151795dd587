import type { ChainDerivedEventType, ChainEventData, ChainEventType, ChainRef } from '@dob/domain';
import type { SpecEvent } from '../../../projections/src/testing/projection-specification';

/** Valid-looking strkeys for specifications: `address('C', 1)` is a contract, `address('G', 2)` an account. */
export const address = (kind: 'C' | 'G', n: number): string => `${kind}${'A'.repeat(54)}${String.fromCharCode(65 + (n % 26))}`;

export const POOL = address('C', 1);
export const TOKEN = address('C', 2);
export const CAMPAIGN = address('C', 3);
export const PARTICIPATION_TOKEN = address('C', 4);
export const ALICE = address('G', 1);
export const BOB = address('G', 2);

/** The chain ref of the n-th chain event of a specification (ledger n, closed n minutes after 2026-01-01). */
export function chainAt(n: number, contract = POOL): ChainRef {
  return {
    network_id: 9,
    contract_id: contract,
    tx_hash: n.toString(16).padStart(64, '0'),
    ledger: n,
    event_id: `${String(n).padStart(19, '0')}-0000000001`,
    closed_at: new Date(Date.UTC(2026, 0, 1, 0, n)).toISOString(),
  };
}

/** A chain-derived event of the n-th ledger: its payload is checked against the catalog type at compile time. */
export function onChain<K extends ChainDerivedEventType>(n: number, type: K, data: Omit<ChainEventData[K], 'chain'>, contract = POOL): SpecEvent {
  return { type, data: { chain: chainAt(n, contract), ...data }, id: `event-${type}-${n}` };
}

/** An event without a chain ref (registry, scheduler), checked against its catalog type. */
export function offChain<K extends ChainEventType>(type: K, data: ChainEventData[K]): SpecEvent {
  return { type, data, id: `event-${type}` };
}

/** A V2 reward pool's `init` at ledger n, its admin ALICE, its shares in PARTICIPATION_TOKEN. */
export function v2PoolInitialized(n: number): SpecEvent {
  return onChain(n, 'PoolInitialized', {
    pool_version: '2',
    contract_version: '2',
    admin: ALICE,
    shares_len: 0,
    mutable: true,
    participation_token: PARTICIPATION_TOKEN,
    pool_type: 'reward',
    pool_type_code: 0,
  });
}
