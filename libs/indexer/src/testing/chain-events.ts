import { Address, nativeToScVal, xdr } from '@stellar/stellar-sdk';
import type { RawChainEvent } from '../decoding/chain-event';

/** Builders for synthetic RPC events in tests (ids follow stellar-rpc: TOID of ledger, zero-padded, then index). */
export const sym = (s: string) => xdr.ScVal.scvSymbol(s);
export const addr = (a: string) => Address.fromString(a).toScVal();
export const i128 = (n: bigint | number) => nativeToScVal(BigInt(n), { type: 'i128' });
export const u64 = (n: bigint | number) => nativeToScVal(BigInt(n), { type: 'u64' });
export const u32 = (n: number) => xdr.ScVal.scvU32(n);
export const bool = (b: boolean) => xdr.ScVal.scvBool(b);
export const vec = (...v: xdr.ScVal[]) => xdr.ScVal.scvVec(v);
export const contractAddr = (seed: number) => Address.contract(Buffer.alloc(32, seed)).toString();

export function rpcEventId(ledger: number, index: number): string {
  return `${(BigInt(ledger) << 32n).toString().padStart(19, '0')}-${String(index).padStart(10, '0')}`;
}

export function chainEvent(contractId: string, ledger: number, index: number, topic: xdr.ScVal[], value: xdr.ScVal): RawChainEvent {
  return {
    id: rpcEventId(ledger, index),
    ledger,
    ledgerClosedAt: new Date(Date.UTC(2026, 0, 1) + ledger * 5000).toISOString(),
    txHash: ledger.toString(16).padStart(64, '0'),
    contractId,
    topic,
    value,
    inSuccessfulContractCall: true,
  };
}
