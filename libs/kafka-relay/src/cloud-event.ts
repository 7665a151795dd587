import { isJsonObject, type ChainRef } from '@dob/domain';
import { positionToString, type RecordedEvent } from '@dob/event-store';
import { brokerTopic, routeEvent, type EventRoute } from './analyst-topics';

/**
 * A domain event as a CloudEvents 1.0 JSON document (structured content mode), the value of every analyst message.
 * Extension attributes (lower-case alphanumerics, CloudEvents §3.1.1): `partitionkey` (the Partitioning extension:
 * the Kafka message key), `position` (the event's global position in the event store, `commit:prepare`), and for
 * chain-derived events the chain reference `ledger`, `txhash`, `chaineventid` (the RPC event id).
 * Spec: https://github.com/cloudevents/spec/blob/v1.0.2/cloudevents/spec.md (+ formats/json-format.md); Kafka binding:
 * https://github.com/cloudevents/spec/blob/main/cloudevents/bindings/kafka-protocol-binding.md (§3.1 key mapping from
 * `partitionkey`, §3.3 structured mode: `content-type: application/cloudevents+json`).
 */
export interface AnalystCloudEvent {
  readonly specversion: '1.0';
  /** The event's id in the event store (deterministic UUID): the deduplication key. */
  readonly id: string;
  /** `stellar:<network_id>/<contract>`: the contract that emitted it (the pool/campaign for derived events). */
  readonly source: string;
  /** `io.dobprotocol.<EventType>.v<schema version>`. */
  readonly type: string;
  /** The pool or campaign address the event belongs to (= the message key). */
  readonly subject: string;
  /** Ledger close time for chain events; the observation/registration time for derived ones. */
  readonly time: string;
  readonly datacontenttype: 'application/json';
  readonly partitionkey: string;
  readonly position: string;
  readonly ledger?: number;
  readonly txhash?: string;
  readonly chaineventid?: string;
  /** The domain payload: money as decimal strings of base units, addresses as strkeys. */
  readonly data: Record<string, unknown>;
}

export const CLOUD_EVENT_TYPE_PREFIX = 'io.dobprotocol.';

export function cloudEventType(eventType: string, version: number): string {
  return `${CLOUD_EVENT_TYPE_PREFIX}${eventType}.v${version}`;
}

/** Kafka protocol binding, structured mode: the content type names the CloudEvents JSON format. */
export const STRUCTURED_CONTENT_TYPE = 'application/cloudevents+json; charset=UTF-8';

export interface AnalystMessage {
  readonly topic: string;
  readonly key: string;
  readonly value: string;
  /** `content-type`, plus `ce_id` and `ce_type` so consumers can filter or deduplicate without parsing the value. */
  readonly headers: Readonly<Record<string, string>>;
  /** Kept for the relay's own bookkeeping (not sent). */
  readonly eventId: string;
}

/** Time the event happened: chain events carry the ledger close time; derived ones their own timestamp field. */
function eventTime(data: Record<string, unknown>, recordedAt: Date): string {
  const chain = data.chain as ChainRef | undefined;
  const own = chain?.closed_at ?? data.observed_at ?? data.registered_at ?? data.updated_at;
  return typeof own === 'string' ? new Date(own).toISOString() : recordedAt.toISOString();
}

export function toCloudEvent(event: RecordedEvent, route: EventRoute): AnalystCloudEvent {
  // Payloads are JSON objects (the catalog's schemas validate them on append).
  const data = isJsonObject(event.data) ? event.data : {};
  const chain = data.chain as ChainRef | undefined;
  return {
    specversion: '1.0',
    id: event.id,
    source: `stellar:${chain?.network_id ?? route.networkId}/${chain?.contract_id ?? route.key}`,
    type: cloudEventType(event.type, event.version),
    subject: route.key,
    time: eventTime(data, event.recordedAt),
    datacontenttype: 'application/json',
    partitionkey: route.key,
    position: positionToString(event.position),
    ...(chain ? { ledger: chain.ledger, txhash: chain.tx_hash, chaineventid: chain.event_id } : {}),
    data,
  };
}

/** The message for an event, or null when analysts do not get its type (indexer bookkeeping, wallet keys). */
export function toAnalystMessage(event: RecordedEvent, topicPrefix = ''): AnalystMessage | null {
  const route = routeEvent(event);
  if (!route) return null;
  const ce = toCloudEvent(event, route);
  return {
    topic: brokerTopic(route.topic, topicPrefix),
    key: route.key,
    value: JSON.stringify(ce),
    headers: { 'content-type': STRUCTURED_CONTENT_TYPE, ce_id: ce.id, ce_type: ce.type },
    eventId: event.id,
  };
}
