import type { PoolType } from '@dob/domain';

export type ContractKind = 'splitter' | 'participation_token' | 'crowdfunding' | 'sac' | 'exit_liquidity';

/**
 * What the indexer knows about a watched contract. Generic symbols (`transfer`, `init`, `set_admin`, `mint`) are
 * decoded by this identity, never by symbol alone (docs/contracts.md §8).
 *
 * Versions:
 * - splitter: "1.0" (no events), "1.2", "1.3" (+dist_str, migrated), "1.3-admin" (+set_admin), "1" (any V1 build), "2";
 * - crowdfunding: build letters "a"…"g" (docs/contracts.md §4.1) or "unknown" (accept both data layouts);
 * - participation_token: "0.1", "0.2" or "unknown"; sac: "cap67".
 */
export interface ContractIdentity {
  readonly contractId: string;
  readonly kind: ContractKind;
  readonly version: string;
  readonly wasmHash?: string | null;
  /** For a participation token: the V2 pool it belongs to. */
  readonly pool?: string | null;
  /** For a participation token: its pool's type, when known (crowdfunding pools mint allocations). */
  readonly poolType?: PoolType | null;
}

export interface KnownWasm {
  readonly hash: string;
  readonly kind: ContractKind;
  readonly version: string;
  readonly label: string;
}

/**
 * Full wasm hashes published by the repo (docs/contracts.md §10). Prefix-only hashes from the docs (bf0a3d1e…,
 * d4c13dfd…, 3e8f372a…) cannot be matched and must be configured in full; the devnet reports its own.
 */
export const KNOWN_DOB_WASMS: readonly KnownWasm[] = [
  {
    hash: '67848b7ab5a32ea5b0410d16393b5d4e79f68266571272a3aff4edf5ec67483c',
    kind: 'splitter',
    version: '1.2',
    label: 'splitter V1 mainnet (README c8c97ec)',
  },
  {
    hash: 'eeef554bd7b5da5004ca78b6412c285b5b7f1261c0e6a71c3be4b100c1b3d352',
    kind: 'splitter',
    version: '1.2',
    label: 'splitter V1 testnet (README c8c97ec)',
  },
  {
    hash: '595c713623b2da4adc688e40ee03264a229d21fe3d77d7d1e35cf424185d17eb',
    kind: 'crowdfunding',
    version: 'g',
    label: 'crowdfunding cf-v0.3.0 (7ff1df3)',
  },
];

/** hash → kind/version; configurable so the devnet's and future releases' hashes can be added. */
export class WasmRegistry {
  private readonly byHash = new Map<string, KnownWasm>();

  constructor(known: readonly KnownWasm[] = KNOWN_DOB_WASMS) {
    for (const k of known) this.byHash.set(k.hash.toLowerCase(), k);
  }

  lookup(hash: string): KnownWasm | undefined {
    return this.byHash.get(hash.toLowerCase());
  }

  all(): KnownWasm[] {
    return [...this.byHash.values()];
  }
}

/** Crowdfunding builds whose cf_init / cf_actv carry payout_mode (6 / 3 items, docs/contracts.md §4.1). */
export const CF_PAYOUT_BUILDS = new Set(['c', 'f', 'g']);
export const CF_BUILDS = ['a', 'b', 'c', 'd', 'e', 'f', 'g'] as const;
