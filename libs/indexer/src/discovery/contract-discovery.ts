import type { ContractIdentity, WasmRegistry } from '../decoding/contract-identity';
import { MAX_LEDGER_ENTRY_KEYS, type ChainRpc, type ContractExecutableInfo, type RpcCallOptions } from '../rpc/chain-rpc.port';

/** A contract that emitted `init` (a splitter's) or `cf_init` (a crowdfunding campaign's): a discovery candidate. */
export interface DiscoveryCandidate {
  readonly contractId: string;
  readonly symbol: 'init' | 'cf_init';
}

/**
 * Confirms discovery candidates by reading their instances' wasm hashes (getLedgerEntries on the contract-instance
 * keys) against the known Dob wasm hashes. A symbol alone proves nothing: any contract can emit `init`. One call
 * for up to MAX_LEDGER_ENTRY_KEYS candidates, rather than a round trip each: a first backfill meets every pool's
 * `init`, and against a remote RPC a round trip each was the backfill's slowest part.
 */
export async function confirmCandidates(
  rpc: ChainRpc,
  registry: WasmRegistry,
  candidates: readonly DiscoveryCandidate[],
  options?: RpcCallOptions,
): Promise<Map<string, ContractIdentity | null>> {
  const executables = await rpc.getContractExecutables(
    candidates.map((c) => c.contractId),
    options,
  );
  return new Map(
    candidates.map((c) => [
      c.contractId,
      identify(c.contractId, executables.get(c.contractId) ?? null, registry, [c.symbol === 'init' ? 'splitter' : 'crowdfunding']),
    ]),
  );
}

/**
 * Confirms operator-registered pool addresses (PoolRegistered) the same way: each wasm must be a known splitter or
 * crowdfunding build, because decoding needs the kind and version, and a registration is a claim, not a proof.
 */
export async function confirmRegistered(
  rpc: ChainRpc,
  registry: WasmRegistry,
  contractIds: readonly string[],
  options?: RpcCallOptions,
): Promise<Map<string, ContractIdentity | null>> {
  const executables = await rpc.getContractExecutables(contractIds, options);
  return new Map(contractIds.map((id) => [id, identify(id, executables.get(id) ?? null, registry, ['splitter', 'crowdfunding'])]));
}

/**
 * Confirms items in the batches one getLedgerEntries call takes (MAX_LEDGER_ENTRY_KEYS), one batch after another,
 * and merges what each batch confirmed.
 */
export async function confirmInBatches<T>(
  items: readonly T[],
  confirmBatch: (batch: readonly T[]) => Promise<ReadonlyMap<string, ContractIdentity | null>>,
): Promise<Map<string, ContractIdentity | null>> {
  const confirmed = new Map<string, ContractIdentity | null>();
  for (let i = 0; i < items.length; i += MAX_LEDGER_ENTRY_KEYS) {
    for (const [id, identity] of await confirmBatch(items.slice(i, i + MAX_LEDGER_ENTRY_KEYS))) confirmed.set(id, identity);
  }
  return confirmed;
}

function identify(contractId: string, exe: ContractExecutableInfo, registry: WasmRegistry, kinds: readonly string[]): ContractIdentity | null {
  if (!exe || exe.kind !== 'wasm') return null;
  const known = registry.lookup(exe.hash);
  if (!known || !kinds.includes(known.kind)) return null;
  return { contractId, kind: known.kind, version: known.version, wasmHash: exe.hash };
}
