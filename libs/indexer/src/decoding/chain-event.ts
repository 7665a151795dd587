import type { xdr } from '@stellar/stellar-sdk';
import type { ChainDerivedEventType, ChainEventData, ChainRef } from '@dob/domain';

/**
 * One contract event as returned by stellar-rpc getEvents (the shape of stellar-sdk `rpc.Api.EventResponse`,
 * with the contract id as a strkey string and topics/value already parsed to ScVal).
 */
export interface RawChainEvent {
  /** RPC event id (TOID-based, e.g. "0000012884905985-0000000001"); orders events and is unique per network. */
  readonly id: string;
  readonly ledger: number;
  /** ISO-8601 close time of the ledger. */
  readonly ledgerClosedAt: string;
  readonly txHash: string;
  readonly contractId: string;
  readonly topic: readonly xdr.ScVal[];
  readonly value: xdr.ScVal;
  /** False for events of failed calls (diagnostic); those never change state and are skipped upstream. */
  readonly inSuccessfulContractCall?: boolean;
}

export function chainRefOf(networkId: number, e: RawChainEvent): ChainRef {
  return {
    network_id: networkId,
    contract_id: e.contractId,
    tx_hash: e.txHash,
    ledger: e.ledger,
    event_id: e.id,
    closed_at: isoCloseTime(e.ledgerClosedAt),
  };
}

/** Every event of a ledger has the same close time: the last one normalised is kept (one Date per ledger, not per event). */
let lastCloseTime = { raw: '', iso: '' };
function isoCloseTime(raw: string): string {
  if (raw !== lastCloseTime.raw) lastCloseTime = { raw, iso: new Date(raw).toISOString() };
  return lastCloseTime.iso;
}

/** What a decoder writes for an event type: its catalog payload without `chain` (the decoding adds it). */
export type DraftData<K extends ChainDerivedEventType> = Omit<ChainEventData[K], 'chain'>;

/** A domain event produced by a decoder, before ids are assigned: target stream, type and payload sans `chain`. */
export interface DraftOf<K extends ChainDerivedEventType> {
  readonly streamId: string;
  readonly type: K;
  readonly data: DraftData<K>;
}

/** Any decoder's output (each was built by `draftOf`, which checked its payload against its type). */
export type DomainEventDraft = DraftOf<ChainDerivedEventType>;

/** A draft of one catalog type; the payload is type-checked against the catalog at compile time. */
export function draftOf<K extends ChainDerivedEventType>(streamId: string, type: K, data: DraftData<K>): DraftOf<K> {
  return { streamId, type, data };
}
