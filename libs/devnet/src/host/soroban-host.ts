import { Keypair, StrKey, xdr } from '@stellar/stellar-sdk';
import { ArityError, INSTANCE_TTL, PERSISTENT_TTL, type ContractDefinition, type ContractEnv } from '../contracts/contract';
import { CONTRACTS } from '../contracts/registry';
import { sacInstanceStorage } from '../contracts/stellar-asset';
import { AuthTracker, type AuthFrame } from './auth';
import { contractIdFromDeployer, stellarAssetContractId } from './contract-address';
import { DataStore, InstanceStore } from './contract-store';
import type { AccountRecord, ContractKind, InvokeRequest, InvokeResult, LedgerEntryRecord, LedgerInfo, SorobanHost } from './host.port';
import { HostError } from './host-errors';
import { accountEntry, accountKey, contractDataEntry, contractDataKey, instanceEntry, instanceKey, scAddressOf } from './ledger-entries';
import { kindOfWasmHash, WASM_HASHES } from './wasm-hashes';
import { asAddress } from './scval';
import { declaredFootprint, LedgerTxn, ledgerKeyId, WorldState, type StoredEntry, type WorldSnapshot } from './world-state';

/**
 * Default deployer of deployContract: a fixed, keyless-by-convention devnet account (the secret is derived
 * from a public seed, so it is NOT a secret — never use it outside the devnet).
 */
export const DEVNET_DEPLOYER = Keypair.fromRawEd25519Seed(Buffer.alloc(32, 0x0d)).publicKey();

const TEMPORARY_TTL = 16;
const MAX_CALL_DEPTH = 64;

export interface SorobanHostOptions {
  readonly networkPassphrase: string;
  /** Restores a previous serialise() output. */
  readonly snapshot?: WorldSnapshot;
}

export function createSorobanHost(options: SorobanHostOptions): SorobanHost {
  return new DevnetSorobanHost(options.networkPassphrase, options.snapshot ? WorldState.restore(options.snapshot) : new WorldState());
}

class DevnetSorobanHost implements SorobanHost {
  constructor(
    private readonly passphrase: string,
    private readonly world: WorldState,
  ) {}

  invoke(request: InvokeRequest, options: { commit: boolean }): InvokeResult {
    if (request.ledger.networkPassphrase !== this.passphrase) throw new Error('ledger passphrase does not match the host');
    const txn = new LedgerTxn(this.world, request.footprint ? declaredFootprint(request.footprint) : undefined);
    const execution = new Execution(txn, request, this.passphrase);
    let result: xdr.ScVal;
    try {
      result = execution.call(request.contractId, request.fn, request.args, undefined);
    } catch (e) {
      const err = toHostError(e);
      return { ok: false, error: err.scError, message: err.message };
    }
    if (options.commit) txn.commit();
    const auth = request.authMode === 'record' ? execution.auth.recordedEntries() : [...(request.authEntries ?? [])];
    // Like stellar-rpc's simulation, address credentials put their nonce entry in the read-write footprint
    // (applying the signed entry writes it), so enforcing the footprint accepts the prepared transaction.
    if (request.authMode === 'record') {
      for (const entry of auth) {
        if (entry.credentials.type !== 'sorobanCredentialsAddress') continue;
        const c = entry.credentials.address;
        const nonceKey = xdr.ScVal.scvLedgerKeyNonce(new xdr.ScNonceKey({ nonce: c.nonce }));
        txn.declareWrite(contractDataKey(asAddress(xdr.ScVal.scvAddress(c.address)), nonceKey, xdr.ContractDataDurability.temporary));
      }
    }
    return { ok: true, result, events: execution.events, auth, footprint: txn.footprint() };
  }

  getLedgerEntries(keys: readonly xdr.LedgerKey[]): LedgerEntryRecord[] {
    const out: LedgerEntryRecord[] = [];
    for (const key of keys) {
      const e = this.world.get(ledgerKeyId(key));
      if (!e) continue;
      out.push({
        key,
        entry: e.data,
        lastModifiedLedgerSeq: e.lastModifiedLedgerSeq,
        ...(e.liveUntilLedgerSeq === undefined ? {} : { liveUntilLedgerSeq: e.liveUntilLedgerSeq }),
      });
    }
    return out;
  }

  getAccount(accountId: string): AccountRecord | undefined {
    const e = this.world.get(ledgerKeyId(accountKey(accountId)));
    if (!e || e.data.type !== 'account') return undefined;
    return { accountId, balance: e.data.account.balance, sequence: e.data.account.seqNum };
  }

  createAccount(accountId: string, balance: bigint, ledgerSequence: number): void {
    if (!StrKey.isValidEd25519PublicKey(accountId)) throw new Error(`invalid account id ${accountId}`);
    const id = ledgerKeyId(accountKey(accountId));
    if (this.world.get(id)) throw new Error(`account ${accountId} already exists`);
    this.world.set(id, {
      data: accountEntry(accountId, balance, BigInt(ledgerSequence) << 32n),
      lastModifiedLedgerSeq: ledgerSequence,
    });
  }

  consumeSequenceAndFee(accountId: string, sequence: bigint, fee: bigint, ledgerSequence: number): void {
    const id = ledgerKeyId(accountKey(accountId));
    const e = this.world.get(id);
    if (!e || e.data.type !== 'account') throw new Error(`account ${accountId} does not exist`);
    const a = e.data.account;
    const balance = a.balance - fee < 0n ? 0n : a.balance - fee;
    this.world.set(id, { data: accountEntry(accountId, balance, sequence), lastModifiedLedgerSeq: ledgerSequence });
  }

  deployContract(kind: ContractKind, salt: Buffer, ledger: LedgerInfo, deployer: string = DEVNET_DEPLOYER): string {
    if (kind === 'stellar_asset') throw new Error('deploy a Stellar Asset Contract with deployStellarAsset');
    const contractId = contractIdFromDeployer(this.passphrase, deployer, salt);
    if (this.world.get(ledgerKeyId(instanceKey(contractId)))) throw new Error(`contract ${contractId} already exists`);
    this.deployContractAt(kind, contractId, ledger);
    return contractId;
  }

  deployStellarAsset(code: string, issuer: string | undefined, ledger: LedgerInfo): string {
    const contractId = stellarAssetContractId(this.passphrase, code, issuer);
    if (!this.world.get(ledgerKeyId(instanceKey(contractId)))) {
      this.deployContractAt('stellar_asset', contractId, ledger, { code, ...(issuer ? { issuer } : {}) });
    }
    return contractId;
  }

  deployContractAt(kind: ContractKind, contractId: string, ledger: LedgerInfo, asset?: { code: string; issuer?: string }): void {
    let executable: xdr.ContractExecutable;
    let storage: xdr.ScMapEntry[] | null = null;
    if (kind === 'stellar_asset') {
      if (!asset) throw new Error('stellar_asset needs an asset');
      executable = xdr.ContractExecutable.contractExecutableStellarAsset();
      storage = sacInstanceStorage(asset.code, asset.issuer);
    } else {
      executable = xdr.ContractExecutable.contractExecutableWasm(Buffer.from(WASM_HASHES[kind], 'hex'));
    }
    this.world.set(ledgerKeyId(instanceKey(contractId)), {
      data: instanceEntry(contractId, executable, storage),
      lastModifiedLedgerSeq: ledger.sequence,
      liveUntilLedgerSeq: ledger.sequence + INSTANCE_TTL,
    });
  }

  wasmHashOf(contractId: string): string | undefined {
    const exec = executableOf(this.world.get(ledgerKeyId(instanceKey(contractId))));
    return exec?.type === 'contractExecutableWasm' ? Buffer.from(exec.wasmHash.toXdr()).toString('hex') : undefined;
  }

  kindOf(contractId: string): ContractKind | undefined {
    return kindOfEntry(this.world.get(ledgerKeyId(instanceKey(contractId))));
  }

  serialise(): WorldSnapshot {
    return this.world.serialise();
  }
}

function executableOf(entry: StoredEntry | undefined): xdr.ContractExecutable | undefined {
  if (!entry || entry.data.type !== 'contractData') return undefined;
  const val = entry.data.contractData.val;
  return val.type === 'scvContractInstance' ? val.instance.executable : undefined;
}

function kindOfEntry(entry: StoredEntry | undefined): ContractKind | undefined {
  const exec = executableOf(entry);
  if (!exec) return undefined;
  if (exec.type === 'contractExecutableStellarAsset') return 'stellar_asset';
  if (exec.type === 'contractExecutableWasm') return kindOfWasmHash(Buffer.from(exec.wasmHash.toXdr()).toString('hex'));
  return undefined;
}

function toHostError(e: unknown): HostError {
  if (e instanceof HostError) return e;
  if (e instanceof ArityError) return HostError.valueUnexpectedType(e.message);
  // A bug in a reproduced contract: report it as a trap rather than crashing the chain.
  return HostError.panic(e instanceof Error ? e.message : String(e));
}

interface Frame extends AuthFrame {
  readonly definition: ContractDefinition;
}

/** One invocation tree: call stack, events, authorization, all over one LedgerTxn. */
class Execution {
  readonly events: xdr.ContractEvent[] = [];
  readonly auth: AuthTracker;
  private readonly stack: Frame[] = [];

  constructor(
    private readonly txn: LedgerTxn,
    private readonly request: InvokeRequest,
    private readonly passphrase: string,
  ) {
    this.auth = new AuthTracker({
      mode: request.authMode,
      source: request.source,
      passphrase,
      ledgerSequence: request.ledger.sequence,
      entries: request.authEntries ?? [],
      consumeNonce: (address, nonce, liveUntil) => this.consumeNonce(address, nonce, liveUntil),
    });
  }

  call(contractId: string, fn: string, args: readonly xdr.ScVal[], invoker: string | undefined): xdr.ScVal {
    if (!isContractId(contractId)) throw HostError.valueUnexpectedType(`${contractId} is not a contract`);
    if (this.stack.length >= MAX_CALL_DEPTH) throw HostError.panic('call depth exceeded');
    const kind = kindOfEntry(this.txn.load(instanceKey(contractId)));
    if (!kind) throw HostError.storageMissing(`contract ${contractId} not found`);
    const definition = CONTRACTS[kind];
    const impl = definition.functions[fn];
    if (!impl) throw HostError.missingFunction(fn);
    const frame: Frame = { contractId, fn, args, invoker, authNodes: new Map(), definition };
    this.stack.push(frame);
    try {
      return impl(this.env(frame), args);
    } finally {
      this.stack.pop();
    }
  }

  private env(frame: Frame): ContractEnv {
    const seq = this.request.ledger.sequence;
    const id = frame.contractId;
    return {
      contractId: id,
      ledgerSequence: seq,
      timestamp: this.request.ledger.closeTime,
      networkPassphrase: this.passphrase,
      instance: new InstanceStore(this.txn, id, seq, INSTANCE_TTL),
      persistent: new DataStore(this.txn, id, xdr.ContractDataDurability.persistent, seq, PERSISTENT_TTL),
      temporary: new DataStore(this.txn, id, xdr.ContractDataDurability.temporary, seq, TEMPORARY_TTL),
      requireAuth: (address) => this.auth.requireAuth(this.stack, address),
      emit: (topics, data) => this.events.push(contractEvent(id, topics, data)),
      invoke: (target, fn, args) => this.call(target, fn, args, id),
      kindOf: (target) => (isContractId(target) ? kindOfEntry(this.txn.load(instanceKey(target))) : undefined),
    };
  }

  /** Nonces of address credentials live as temporary entries under the signer (as on the real network). */
  private consumeNonce(address: string, nonce: bigint, liveUntil: number): boolean {
    const key = xdr.ScVal.scvLedgerKeyNonce(new xdr.ScNonceKey({ nonce }));
    const lk = contractDataKey(address, key, xdr.ContractDataDurability.temporary);
    if (this.txn.load(lk)) return false;
    this.txn.put(lk, {
      data: contractDataEntry(address, key, xdr.ContractDataDurability.temporary, xdr.ScVal.scvVoid()),
      lastModifiedLedgerSeq: this.request.ledger.sequence,
      liveUntilLedgerSeq: liveUntil,
    });
    return true;
  }
}

const validContracts = new Set<string>();
/** StrKey.isValidContract, memoised (checksum decoding on every cross-contract call was a hot spot). */
function isContractId(id: string): boolean {
  if (validContracts.has(id)) return true;
  if (!StrKey.isValidContract(id)) return false;
  if (validContracts.size >= 200_000) validContracts.clear();
  validContracts.add(id);
  return true;
}

function contractEvent(contractId: string, topics: readonly xdr.ScVal[], data: xdr.ScVal): xdr.ContractEvent {
  const address = scAddressOf(contractId);
  return new xdr.ContractEvent({
    ext: xdr.ExtensionPoint.v0(),
    contractId: address.type === 'scAddressTypeContract' ? (address as xdr.ScAddressContract).contractId : null,
    type: xdr.ContractEventType.contract,
    body: xdr.ContractEventBody.v0(new xdr.ContractEventV0({ topics: [...topics], data })),
  });
}
