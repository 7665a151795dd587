import type { xdr } from '@stellar/stellar-sdk';
import type { ContractKind } from '../host/host.port';

/** Typed key/value storage of one durability class of the executing contract (soroban-sdk `env.storage()`). */
export interface ContractStore {
  get(key: xdr.ScVal): xdr.ScVal | undefined;
  has(key: xdr.ScVal): boolean;
  /** Writes and bumps the entry's TTL to at least `ttlLedgers` from now (the contracts' extend_ttl calls). */
  set(key: xdr.ScVal, val: xdr.ScVal, ttlLedgers?: number): void;
  remove(key: xdr.ScVal): void;
}

/** What a contract sees of the host while one of its functions runs (the `Env`). */
export interface ContractEnv {
  /** The executing contract's own C… address (`env.current_contract_address()`). */
  readonly contractId: string;
  readonly ledgerSequence: number;
  /** Ledger close time, unix seconds (`env.ledger().timestamp()`). */
  readonly timestamp: bigint;
  readonly networkPassphrase: string;
  readonly instance: ContractStore;
  readonly persistent: ContractStore;
  readonly temporary: ContractStore;
  /** `address.require_auth()` for the current invocation (recorded or enforced by the host). */
  requireAuth(address: string): void;
  /** Publishes a contract event (`env.events().publish(topics, data)`). */
  emit(topics: readonly xdr.ScVal[], data: xdr.ScVal): void;
  /** Cross-contract call; any error aborts the whole invocation. */
  invoke(contractId: string, fn: string, args: readonly xdr.ScVal[]): xdr.ScVal;
  /** The kind of contract deployed at an address, if any (used for interface probes). */
  kindOf(contractId: string): ContractKind | undefined;
}

export type ContractFunction = (env: ContractEnv, args: readonly xdr.ScVal[]) => xdr.ScVal;

/** A reproduced contract: its exported functions, by Soroban function name. */
export interface ContractDefinition {
  readonly kind: ContractKind;
  readonly functions: Readonly<Record<string, ContractFunction>>;
}

/** Storage TTLs (ledgers) the DobProtocol contracts bump to: DAY = 17,280 ledgers (docs/contracts.md §2.5). */
export const DAY_LEDGERS = 17_280;
export const INSTANCE_TTL = 7 * DAY_LEDGERS;
export const PERSISTENT_TTL = 30 * DAY_LEDGERS;

/** Checks argument count like the wasm ABI does (wrong arity traps in the VM). */
export function expectArgs(args: readonly xdr.ScVal[], n: number): void {
  if (args.length !== n) throw new ArityError(n, args.length);
}

export class ArityError extends Error {
  constructor(
    readonly expected: number,
    readonly got: number,
  ) {
    super(`expected ${expected} arguments, got ${got}`);
  }
}
