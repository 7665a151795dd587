import { xdr } from '@stellar/stellar-sdk';

type Wire<T extends { fromXdrObject(w: never): unknown }> = Parameters<T['fromXdrObject']>[0];

/**
 * A simplified, deterministic resource model (the devnet does not meter CPU or bytes): the fee and declared
 * resources grow with the footprint, so prepareTransaction/assembleTransaction produce a fee that the chain then
 * requires (fee ≥ base fee + resourceFee), exactly the contract a client relies on with a real network.
 */
export function resourceFeeFor(footprint: { readonly readOnly: readonly unknown[]; readonly readWrite: readonly unknown[] }): bigint {
  return 10_000n + 1_500n * BigInt(footprint.readWrite.length) + 500n * BigInt(footprint.readOnly.length);
}

export function sorobanTransactionData(footprint: {
  readonly readOnly: readonly xdr.LedgerKey[];
  readonly readWrite: readonly xdr.LedgerKey[];
}): xdr.SorobanTransactionData {
  const entries = footprint.readOnly.length + footprint.readWrite.length;
  return xdr.SorobanTransactionData.fromXdrObject({
    ext: { v: 0 },
    resources: {
      footprint: {
        readOnly: footprint.readOnly.map((k) => k.toXdrObject()),
        readWrite: footprint.readWrite.map((k) => k.toXdrObject()),
      },
      instructions: 1_000_000 + 100_000 * entries,
      diskReadBytes: 256 * entries,
      writeBytes: 512 * footprint.readWrite.length,
    },
    resourceFee: resourceFeeFor(footprint),
  } as Wire<typeof xdr.SorobanTransactionData>);
}
