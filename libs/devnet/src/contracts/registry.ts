import type { ContractKind } from '../host/host.port';
import type { ContractDefinition } from './contract';
import { crowdfundingV1 } from './crowdfunding/crowdfunding-v1';
import { splitterV12, splitterV13 } from './splitter-v1/splitter-v1';
import { participationToken } from './participation-token';
import { splitterV2 } from './splitter-v2/splitter-v2';
import { stellarAsset } from './stellar-asset';

/** Every reproduced contract, by kind. */
export const CONTRACTS: Readonly<Record<ContractKind, ContractDefinition>> = {
  stellar_asset: stellarAsset,
  splitter_v1_2: splitterV12,
  splitter_v1_3: splitterV13,
  splitter_v2: splitterV2,
  participation_token: participationToken,
  crowdfunding_v1: crowdfundingV1,
};
