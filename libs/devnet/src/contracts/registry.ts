import type { ContractKind } from '../host/host.port';
import type { ContractDefinition } from './contract';
import { crowdfundingV1 } from './crowdfunding/crowdfunding-v1';
import { splitterV12, splitterV13 } from './splitter-v1/splitter-v1';
import { stellarAsset } from './stellar-asset';

const notYet = (kind: ContractKind): ContractDefinition => ({ kind, functions: {} });

/** Every reproduced contract, by kind. */
export const CONTRACTS: Readonly<Record<ContractKind, ContractDefinition>> = {
  stellar_asset: stellarAsset,
  splitter_v1_2: splitterV12,
  splitter_v1_3: splitterV13,
  splitter_v2: notYet('splitter_v2'),
  participation_token: notYet('participation_token'),
  crowdfunding_v1: crowdfundingV1,
};
