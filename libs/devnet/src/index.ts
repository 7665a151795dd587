// --- contract host (world state + reproduced DobProtocol contracts) ---
export * from './host/host.port';
export { createSorobanHost, DEVNET_DEPLOYER, type SorobanHostOptions } from './host/soroban-host';
export { contractIdFromDeployer, networkId, stellarAssetContractId } from './host/contract-address';
export { accountKey, contractDataKey, instanceKey } from './host/ledger-entries';
export { WASM_HASHES, kindOfWasmHash } from './host/wasm-hashes';
export { HostError } from './host/host-errors';
