// --- contract host (world state + reproduced DobProtocol contracts) ---
export * from './host/host.port';
export { createSorobanHost, DEVNET_DEPLOYER, type SorobanHostOptions } from './host/soroban-host';
export { contractIdFromDeployer, networkId, stellarAssetContractId } from './host/contract-address';
export { accountKey, contractDataKey, instanceKey } from './host/ledger-entries';
export { WASM_HASHES, kindOfWasmHash } from './host/wasm-hashes';
export { HostError } from './host/host-errors';

// --- chain, Stellar RPC server, faucet, persistence, seeder (the runnable devnet) ---
export { DEVNET_STAND_IN_WASMS } from './stand-in-wasms';
export { startDevnet, DEFAULT_SEED, type StartDevnetOptions, type RunningDevnet } from './start-devnet';
export { DevnetChain, STANDALONE_PASSPHRASE, DEFAULT_RETENTION_LEDGERS, type SubmitResult, type DevnetChainOptions } from './chain/devnet-chain';
export type { ClosedLedger, ContractEventRecord, TransactionRecord } from './chain/chain-records';
export { formatEventId, parseEventId, toid, type EventCursor } from './chain/event-cursor';
export { createRpcServer, type RpcServerOptions } from './rpc/rpc-server';
export { Faucet, FaucetError, FAUCET_XLM_STROOPS, FAUCET_USDC_UNITS } from './faucet/faucet';
export { devnetKeypair, usdcIssuer, USDC_CODE } from './devnet-identities';
export type { SeededPool, SeedOptions, SeedResult } from './seeder/seed-devnet';
export { WorldState, LedgerTxn, ledgerKeyId, type StoredEntry } from './host/world-state';
export { CONTRACTS } from './contracts/registry';
export type { ContractDefinition, ContractEnv, ContractStore } from './contracts/contract';
