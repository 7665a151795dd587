import { StrKey, xdr } from '@stellar/stellar-sdk';
import type { ContractEventRecord, TransactionRecord } from './chain-records';
import { scValBase64 } from '../host/fast-xdr';
import { transactionMetaXdr } from './transaction-xdr';

type Wire<T extends { fromXdrObject(w: never): unknown }> = Parameters<T['fromXdrObject']>[0];

/** Flattens a host-emitted ContractEvent into the record getEvents serves. */
export function toEventRecord(
  event: xdr.ContractEvent,
  position: { ledger: number; txIndex: number; opIndex: number; eventIndex: number; txHash: string },
): ContractEventRecord {
  const body = event.body.v0;
  return {
    ...position,
    type: event.type.name === 'system' ? 'system' : 'contract',
    contractId: event.contractId ? StrKey.encodeContract(Buffer.from(event.contractId.value)) : '',
    topics: body.topics.map(scValBase64),
    value: scValBase64(body.data),
  };
}

/** The inverse, for rebuilding TransactionMeta / getTransaction's contractEventsXdr from stored records. */
export function toContractEvent(record: ContractEventRecord): xdr.ContractEvent {
  return xdr.ContractEvent.fromXdrObject({
    ext: { v: 0 },
    contractId: record.contractId ? StrKey.decodeContract(record.contractId) : null,
    type: record.type === 'system' ? 0 : 1,
    body: {
      v: 0,
      v0: {
        topics: record.topics.map((t) => xdr.ScVal.fromXdr(t, 'base64').toXdrObject()),
        data: xdr.ScVal.fromXdr(record.value, 'base64').toXdrObject(),
      },
    },
  } as Wire<typeof xdr.ContractEvent>);
}

/** getTransaction's resultMetaXdr, rebuilt from the stored record (TransactionMeta v4, see transaction-xdr.ts). */
export function resultMetaXdrOf(record: TransactionRecord): string {
  return transactionMetaXdr({
    returnValue: record.returnValueXdr ? xdr.ScVal.fromXdr(record.returnValueXdr, 'base64') : null,
    events: record.events.map(toContractEvent),
    nonRefundableFee: record.resourceFeeCharged,
  });
}
