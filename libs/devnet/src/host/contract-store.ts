import { xdr } from '@stellar/stellar-sdk';
import type { ContractStore } from '../contracts/contract';
import { contractDataEntry, contractDataKey, instanceEntry, instanceKey } from './ledger-entries';
import { compareScVal } from './scval';
import type { LedgerTxn, StoredEntry } from './world-state';

/**
 * Persistent / temporary contract data of one contract: each key is its own ledger entry
 * (LedgerKey contractData {contract, key, durability}).
 */
export class DataStore implements ContractStore {
  constructor(
    private readonly txn: LedgerTxn,
    private readonly contractId: string,
    private readonly durability: xdr.ContractDataDurability,
    private readonly ledgerSequence: number,
    private readonly defaultTtl: number,
  ) {}

  get(key: xdr.ScVal): xdr.ScVal | undefined {
    const e = this.txn.load(contractDataKey(this.contractId, key, this.durability));
    return e && e.data.type === 'contractData' ? e.data.contractData.val : undefined;
  }

  has(key: xdr.ScVal): boolean {
    return this.get(key) !== undefined;
  }

  set(key: xdr.ScVal, val: xdr.ScVal, ttlLedgers = this.defaultTtl): void {
    const lk = contractDataKey(this.contractId, key, this.durability);
    const prev = this.txn.load(lk);
    this.txn.put(lk, {
      data: contractDataEntry(this.contractId, key, this.durability, val),
      lastModifiedLedgerSeq: this.ledgerSequence,
      liveUntilLedgerSeq: Math.max(prev?.liveUntilLedgerSeq ?? 0, this.ledgerSequence + ttlLedgers),
    });
  }

  remove(key: xdr.ScVal): void {
    const lk = contractDataKey(this.contractId, key, this.durability);
    if (this.txn.load(lk)) this.txn.erase(lk);
  }
}

/**
 * Instance storage: a sorted ScMap inside the contract's instance entry (`SCContractInstance.storage`), so the
 * whole map is rewritten on every change, as on the real network.
 */
export class InstanceStore implements ContractStore {
  constructor(
    private readonly txn: LedgerTxn,
    private readonly contractId: string,
    private readonly ledgerSequence: number,
    private readonly ttl: number,
  ) {}

  private load(): { entry: StoredEntry; instance: xdr.ScContractInstance } {
    const entry = this.txn.load(instanceKey(this.contractId));
    if (!entry || entry.data.type !== 'contractData') throw new Error(`no instance for ${this.contractId}`);
    const val = entry.data.contractData.val;
    if (val.type !== 'scvContractInstance') throw new Error(`corrupt instance for ${this.contractId}`);
    return { entry, instance: val.instance };
  }

  get(key: xdr.ScVal): xdr.ScVal | undefined {
    const { instance } = this.load();
    return (instance.storage ?? []).find((e) => compareScVal(e.key, key) === 0)?.val;
  }

  has(key: xdr.ScVal): boolean {
    return this.get(key) !== undefined;
  }

  set(key: xdr.ScVal, val: xdr.ScVal): void {
    const { entry, instance } = this.load();
    const rest = (instance.storage ?? []).filter((e) => compareScVal(e.key, key) !== 0);
    rest.push(new xdr.ScMapEntry({ key, val }));
    rest.sort((a, b) => compareScVal(a.key, b.key));
    this.write(entry, instance.executable, rest);
  }

  remove(key: xdr.ScVal): void {
    const { entry, instance } = this.load();
    const storage = instance.storage ?? [];
    const rest = storage.filter((e) => compareScVal(e.key, key) !== 0);
    if (rest.length !== storage.length) this.write(entry, instance.executable, rest);
  }

  private write(prev: StoredEntry, executable: xdr.ContractExecutable, storage: xdr.ScMapEntry[]): void {
    this.txn.put(instanceKey(this.contractId), {
      data: instanceEntry(this.contractId, executable, storage.length ? storage : null),
      lastModifiedLedgerSeq: this.ledgerSequence,
      liveUntilLedgerSeq: Math.max(prev.liveUntilLedgerSeq ?? 0, this.ledgerSequence + this.ttl),
    });
  }
}
