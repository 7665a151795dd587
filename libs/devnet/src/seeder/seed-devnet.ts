import type { Keypair } from '@stellar/stellar-sdk';
import type { DevnetChain } from '../chain/devnet-chain';

/** Off-chain metadata of a seeded pool, as the indexer's pool registry consumes it. */
export interface SeededPool {
  readonly pool_address: string;
  readonly contract_kind: string;
  readonly name: string;
  readonly ticker: string;
  readonly access_type: 'rtj' | 'p' | 'qr' | 'stk';
  readonly distribution_type: 'tr' | 'bt' | 'dam';
  readonly estimated_apr: string;
  readonly max_participants: number;
  readonly token_to_distribute: string;
  readonly created_at: string;
}

export interface SeedOptions {
  readonly seed: number;
  readonly paymentToken: string;
  readonly issuer: Keypair;
  /** Approximate number of contract events to generate (benchmarks). */
  readonly events?: number;
}

export interface SeedResult {
  readonly pools: SeededPool[];
  readonly events: number;
  readonly transactions: number;
}

export function seedDevnet(_chain: DevnetChain, _options: SeedOptions): SeedResult {
  throw new Error('seeder not implemented yet');
}
