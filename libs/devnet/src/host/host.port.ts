import type { xdr } from '@stellar/stellar-sdk';
import type { WorldSnapshot } from './world-state';

export type { WorldSnapshot } from './world-state';

/**
 * The boundary between the devnet's chain (ledger close loop, transaction validation, JSON-RPC server) and its
 * contract host (world state + the DobProtocol contracts reproduced in TypeScript).
 *
 * Everything crossing it is real Stellar XDR, so what the RPC layer returns (ledger entries, events, auth entries,
 * footprints, errors) is byte-for-byte what stellar-sdk expects from a real network.
 */

export type ContractKind = 'splitter_v1_2' | 'splitter_v1_3' | 'splitter_v2' | 'participation_token' | 'crowdfunding_v1' | 'stellar_asset';

export interface LedgerInfo {
  readonly sequence: number;
  /** Ledger close time, unix seconds. */
  readonly closeTime: bigint;
  readonly networkPassphrase: string;
}

export interface InvokeRequest {
  readonly contractId: string;
  readonly fn: string;
  readonly args: readonly xdr.ScVal[];
  /** The transaction's source account (G…). */
  readonly source: string;
  readonly ledger: LedgerInfo;
  /**
   * record: simulation — every require_auth is recorded and returned as an auth entry (source-account
   *         credentials when the address is the source, address credentials otherwise), as real RPC does.
   * enforce: a submitted transaction — each require_auth must be covered by `authEntries`
   *          (source-account credentials cover `source`; address credentials must carry a valid signature).
   */
  readonly authMode: 'record' | 'enforce';
  readonly authEntries?: readonly xdr.SorobanAuthorizationEntry[];
  /**
   * The transaction's declared footprint (SorobanTransactionData.resources.footprint). When given, reading a
   * ledger entry outside it or writing one that is not read-write fails with Error(Storage, ExceededLimit).
   */
  readonly footprint?: { readonly readOnly: readonly xdr.LedgerKey[]; readonly readWrite: readonly xdr.LedgerKey[] };
}

export interface InvokeSuccess {
  readonly ok: true;
  readonly result: xdr.ScVal;
  /** Contract events in emission order (type contract). */
  readonly events: readonly xdr.ContractEvent[];
  readonly auth: readonly xdr.SorobanAuthorizationEntry[];
  readonly footprint: { readonly readOnly: readonly xdr.LedgerKey[]; readonly readWrite: readonly xdr.LedgerKey[] };
}

export interface InvokeFailure {
  readonly ok: false;
  /** e.g. ScError contract(#13) for Error(Contract, #13), or auth/invalidAction for a missing authorization. */
  readonly error: xdr.ScError;
  /** Human-readable diagnostic, e.g. "Error(Contract, #13)". */
  readonly message: string;
}

export type InvokeResult = InvokeSuccess | InvokeFailure;

export interface LedgerEntryRecord {
  readonly key: xdr.LedgerKey;
  readonly entry: xdr.LedgerEntryData;
  readonly lastModifiedLedgerSeq: number;
  readonly liveUntilLedgerSeq?: number;
}

export interface AccountRecord {
  readonly accountId: string;
  /** Native balance in stroops. */
  readonly balance: bigint;
  readonly sequence: bigint;
}

export interface SorobanHost {
  /**
   * Runs one invocation atomically. With commit=false (simulation) state is never changed;
   * with commit=true state changes only if the invocation succeeds.
   */
  invoke(request: InvokeRequest, options: { commit: boolean }): InvokeResult;

  getLedgerEntries(keys: readonly xdr.LedgerKey[]): LedgerEntryRecord[];

  getAccount(accountId: string): AccountRecord | undefined;
  createAccount(accountId: string, balance: bigint, ledgerSequence: number): void;
  /** Sets the account's sequence number and charges the fee (stroops) from its native balance. */
  consumeSequenceAndFee(accountId: string, sequence: bigint, fee: bigint, ledgerSequence: number): void;

  /**
   * Deploys a contract instance of a known kind (genesis, seeder, tests); returns its C… address, derived like
   * the real network from (networkId, deployer, salt). `deployer` defaults to DEVNET_DEPLOYER.
   * Not for 'stellar_asset' (use deployStellarAsset).
   */
  deployContract(kind: ContractKind, salt: Buffer, ledger: LedgerInfo, deployer?: string): string;
  /**
   * Deploys the Stellar Asset Contract of a classic asset (`code` + `issuer`, or code 'native'); its address
   * equals `new Asset(code, issuer).contractId(passphrase)`. Admin = issuer. Idempotent.
   */
  deployStellarAsset(code: string, issuer: string | undefined, ledger: LedgerInfo): string;
  /**
   * Test-only: places a contract at a given C… address (e.g. the soroban-sdk test addresses of the fixtures).
   * For 'stellar_asset', `asset` names the asset.
   */
  deployContractAt(kind: ContractKind, contractId: string, ledger: LedgerInfo, asset?: { code: string; issuer?: string }): void;
  /** The kind of the contract at an address (from its instance's executable), if any. */
  kindOf(contractId: string): ContractKind | undefined;
  /** The whole ledger as base64 XDR rows, for persistence; restore with createSorobanHost({ snapshot }). */
  serialise(): WorldSnapshot;
  /** The contract's wasm hash (hex), reported in its instance entry. */
  wasmHashOf(contractId: string): string | undefined;
}
