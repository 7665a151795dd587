import { Address, xdr } from '@stellar/stellar-sdk';

/** LedgerKey / LedgerEntryData builders for the entry kinds the devnet stores. */

export const accountKey = (accountId: string): xdr.LedgerKey =>
  xdr.LedgerKey.fromJson({ account: { account_id: accountId } });

export function contractDataKey(contractId: string, key: xdr.ScVal, durability: xdr.ContractDataDurability): xdr.LedgerKey {
  return xdr.LedgerKey.contractData(
    new xdr.LedgerKeyContractData({ contract: Address.fromString(contractId).toScAddress(), key, durability }),
  );
}

export const instanceKey = (contractId: string): xdr.LedgerKey =>
  contractDataKey(contractId, xdr.ScVal.scvLedgerKeyContractInstance(), xdr.ContractDataDurability.persistent);

export function contractDataEntry(
  contractId: string,
  key: xdr.ScVal,
  durability: xdr.ContractDataDurability,
  val: xdr.ScVal,
): xdr.LedgerEntryData {
  return xdr.LedgerEntryData.contractData(
    new xdr.ContractDataEntry({
      ext: xdr.ExtensionPoint.v0(),
      contract: Address.fromString(contractId).toScAddress(),
      key,
      durability,
      val,
    }),
  );
}

/** A contract instance entry (`scvLedgerKeyContractInstance` → `scvContractInstance`). */
export function instanceEntry(
  contractId: string,
  executable: xdr.ContractExecutable,
  storage: xdr.ScMapEntry[] | null,
): xdr.LedgerEntryData {
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
