import type { ContractIdentity, WasmRegistry } from '../decoding/contract-identity';
import type { ChainRpc, RpcCallOptions } from '../rpc/chain-rpc.port';

/**
 * Confirms a discovery candidate (a contract that emitted `init` / `cf_init`) by reading its instance's wasm hash
 * (getLedgerEntries on the contract-instance key) against the known Dob wasm hashes. A symbol alone proves nothing:
 * any contract can emit `init`.
 */
export async function confirmCandidate(
  rpc: ChainRpc,
  registry: WasmRegistry,
  contractId: string,
  symbol: 'init' | 'cf_init',
  options?: RpcCallOptions,
): Promise<ContractIdentity | null> {
  const exe = await rpc.getContractExecutable(contractId, options);
  if (!exe || exe.kind !== 'wasm') return null;
  const known = registry.lookup(exe.hash);
  if (!known) return null;
  const expected = symbol === 'init' ? 'splitter' : 'crowdfunding';
  if (known.kind !== expected) return null;
  return { contractId, kind: known.kind, version: known.version, wasmHash: exe.hash };
}

/**
 * Confirms an operator-registered pool address (PoolRegistered) the same way: its wasm must be a known splitter or
 * crowdfunding build, because decoding needs the kind and version, and a registration is a claim, not a proof.
 */
export async function confirmRegistered(rpc: ChainRpc, registry: WasmRegistry, contractId: string, options?: RpcCallOptions): Promise<ContractIdentity | null> {
  const exe = await rpc.getContractExecutable(contractId, options);
  if (!exe || exe.kind !== 'wasm') return null;
  const known = registry.lookup(exe.hash);
  if (!known || (known.kind !== 'splitter' && known.kind !== 'crowdfunding')) return null;
  return { contractId, kind: known.kind, version: known.version, wasmHash: exe.hash };
}
