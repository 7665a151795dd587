import { hash } from '@stellar/stellar-sdk';
import type { ContractKind } from './host.port';

/**
 * The wasm hash reported in each contract instance.
 * - splitter_v1_2: the V1 splitter testnet wasm `eeef554b…d352` (README of c8c97ec, docs/contracts.md §10).
 * - crowdfunding_v1: release cf-v0.3.0 `595c7136…17eb` (docs/contracts.md §4.1/§10).
 * - The facts list no full hash for splitter V1.3, splitter V2 (post-audit) and participation_token 0.2.0, so
 *   the devnet uses sha256("dobprotocol-devnet:<kind>") for them: stable across restarts, and obviously
 *   not a real network hash.
 * stellar_asset has no wasm (its executable is `stellar_asset`).
 */
const derived = (kind: ContractKind): string => Buffer.from(hash(Buffer.from(`dobprotocol-devnet:${kind}`))).toString('hex');

export const WASM_HASHES: Readonly<Record<Exclude<ContractKind, 'stellar_asset'>, string>> = {
  splitter_v1_2: 'eeef554bd7b5da5004ca78b6412c285b5b7f1261c0e6a71c3be4b100c1b3d352',
  splitter_v1_3: derived('splitter_v1_3'),
  splitter_v2: derived('splitter_v2'),
  participation_token: derived('participation_token'),
  crowdfunding_v1: '595c713623b2da4adc688e40ee03264a229d21fe3d77d7d1e35cf424185d17eb',
};

const BY_HASH = new Map<string, ContractKind>(Object.entries(WASM_HASHES).map(([kind, h]) => [h, kind as ContractKind]));

export const kindOfWasmHash = (hex: string): ContractKind | undefined => BY_HASH.get(hex);
