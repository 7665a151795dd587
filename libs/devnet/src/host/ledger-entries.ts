import { Address, xdr } from '@stellar/stellar-sdk';

/** LedgerKey / LedgerEntryData builders for the entry kinds the devnet stores. */

const accountKeys = new Map<string, xdr.LedgerKey>();
/** The account's LedgerKey (memoised; LedgerKey objects are never mutated). */
export function accountKey(accountId: string): xdr.LedgerKey {
  let k = accountKeys.get(accountId);
  if (!k) {
    k = xdr.LedgerKey.fromJson({ account: { account_id: accountId } });
    if (accountKeys.size >= 200_000) accountKeys.clear();
    accountKeys.set(accountId, k);
  }
  return k;
}

/** Strkey → ScAddress, memoised (strkey decoding is costly and every storage access needs it). */
const scAddresses = new Map<string, xdr.ScAddress>();
export function scAddressOf(id: string): xdr.ScAddress {
  let a = scAddresses.get(id);
  if (!a) {
    a = Address.fromString(id).toScAddress();
    if (scAddresses.size >= 200_000) scAddresses.clear();
    scAddresses.set(id, a);
  }
  return a;
}

export function contractDataKey(contractId: string, key: xdr.ScVal, durability: xdr.ContractDataDurability): xdr.LedgerKey {
  return xdr.LedgerKey.contractData(new xdr.LedgerKeyContractData({ contract: scAddressOf(contractId), key, durability }));
}

const instanceKeys = new Map<string, xdr.LedgerKey>();
export function instanceKey(contractId: string): xdr.LedgerKey {
  let k = instanceKeys.get(contractId);
  if (!k) {
    k = contractDataKey(contractId, xdr.ScVal.scvLedgerKeyContractInstance(), xdr.ContractDataDurability.persistent);
    if (instanceKeys.size >= 200_000) instanceKeys.clear();
    instanceKeys.set(contractId, k);
  }
  return k;
}

export function contractDataEntry(contractId: string, key: xdr.ScVal, durability: xdr.ContractDataDurability, val: xdr.ScVal): xdr.LedgerEntryData {
  return xdr.LedgerEntryData.contractData(
    new xdr.ContractDataEntry({
      ext: xdr.ExtensionPoint.v0(),
      contract: scAddressOf(contractId),
      key,
      durability,
      val,
    }),
  );
}

/** A contract instance entry (`scvLedgerKeyContractInstance` → `scvContractInstance`). */
export function instanceEntry(contractId: string, executable: xdr.ContractExecutable, storage: xdr.ScMapEntry[] | null): xdr.LedgerEntryData {
  return contractDataEntry(
    contractId,
    xdr.ScVal.scvLedgerKeyContractInstance(),
    xdr.ContractDataDurability.persistent,
    xdr.ScVal.scvContractInstance(new xdr.ScContractInstance({ executable, storage })),
  );
}

/**
 * A classic account entry with only the master key (weight 1, thresholds 0), as created by CreateAccount.
 * The real network starts a new account's sequence at ledgerSeq << 32.
 */
export function accountEntry(accountId: string, balance: bigint, seqNum: bigint): xdr.LedgerEntryData {
  return xdr.LedgerEntryData.fromJson({
    account: {
      account_id: accountId,
      balance: balance.toString(),
      seq_num: seqNum.toString(),
      num_sub_entries: 0,
      inflation_dest: null,
      flags: 0,
      home_domain: '',
      thresholds: '01000000',
      signers: [],
      ext: 'v0',
    },
  });
}
