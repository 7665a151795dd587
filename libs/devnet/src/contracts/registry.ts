import type { ContractKind } from '../host/host.port';
import type { ContractDefinition } from './contract';
import { stellarAsset } from './stellar-asset';

const notYet = (kind: ContractKind): ContractDefinition => ({ kind, functions: {} });

/** Every reproduced contract, by kind. */
export const CONTRACTS: Readonly<Record<ContractKind, ContractDefinition>> = {
  stellar_asset: stellarAsset,
  splitter_v1_2: notYet('splitter_v1_2'),
  splitter_v1_3: notYet('splitter_v1_3'),
  splitter_v2: notYet('splitter_v2'),
  participation_token: notYet('participation_token'),
  crowdfunding_v1: notYet('crowdfunding_v1'),
};
