import type { ContractIdentity } from '../decoding/contract-identity';

export type DiscoverySource = 'init' | 'cf_init' | 'configured' | 'participation_token' | 'registry';

/** The contracts one network's ingestion watches, keyed by contract id. */
export class WatchSet {
  private readonly byId = new Map<string, ContractIdentity>();
  private changes = 0;

  constructor(initial: readonly ContractIdentity[] = []) {
    for (const c of initial) this.add(c);
  }

  add(identity: ContractIdentity): void {
    const before = this.byId.get(identity.contractId);
    const same =
      before?.kind === identity.kind &&
      before.version === identity.version &&
      (before.wasmHash ?? null) === (identity.wasmHash ?? null) &&
      (before.pool ?? null) === (identity.pool ?? null) &&
      (before.poolType ?? null) === (identity.poolType ?? null);
    if (!same) this.changes += 1;
    this.byId.set(identity.contractId, identity);
  }

  /** Changes whenever a contract is added or its identity changes: what the event filters and decoders depend on. */
  get version(): number {
    return this.changes;
  }

  get(contractId: string): ContractIdentity | undefined {
    return this.byId.get(contractId);
  }

  has(contractId: string): boolean {
    return this.byId.has(contractId);
  }

  ids(): string[] {
    return [...this.byId.keys()];
  }

  /** Pools and campaigns: the parties whose token transfers matter. */
  parties(): string[] {
    return [...this.byId.values()].filter((c) => c.kind === 'splitter' || c.kind === 'crowdfunding').map((c) => c.contractId);
  }

  get size(): number {
    return this.byId.size;
  }
}
