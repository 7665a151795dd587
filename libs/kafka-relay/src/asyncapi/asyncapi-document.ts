import { z } from 'zod';
import type { EventCatalog } from '@dob/domain';
import { ANALYST_TOPICS, type AnalystTopic } from '../analyst-topics';
import { STRUCTURED_CONTENT_TYPE, cloudEventType } from '../cloud-event';

/**
 * The AsyncAPI 3.0 description of the analyst topics, generated from the domain event catalog (the zod schemas the
 * event store validates every append with) — so the JSON Schema of each event's `data` is the very schema the
 * events were checked against, never a second hand-written copy. `npm run docs:asyncapi` writes it to
 * docs/kafka.asyncapi.json; asyncapi-document.spec.ts fails when the committed file is stale.
 * Spec: https://www.asyncapi.com/docs/reference/specification/v3.0.0, Kafka bindings 0.5.0:
 * https://www.asyncapi.com/docs/reference/bindings/kafka. JSON Schema via zod 4's `z.toJSONSchema` (draft-07, the
 * dialect AsyncAPI's default schema format extends).
 */
export interface AsyncApiOptions {
  readonly partitions?: number;
  readonly replicationFactor?: number;
  /** Version of this description (info.version). */
  readonly version?: string;
}

type Json = Record<string, unknown>;

const STRKEY_CONTRACT = { type: 'string', pattern: '^C[A-Z2-7]{55}$' };

/** Attributes every message shares (CloudEvents 1.0 context attributes + our extensions). */
const CLOUD_EVENT_ENVELOPE: Json = {
  type: 'object',
  description: 'CloudEvents 1.0, JSON format, structured content mode.',
  required: ['specversion', 'id', 'source', 'type', 'subject', 'time', 'datacontenttype', 'partitionkey', 'position', 'data'],
  additionalProperties: false,
  properties: {
    specversion: { const: '1.0' },
    id: {
      type: 'string',
      format: 'uuid',
      description: 'The event id in the event store (deterministic for chain facts): deduplicate on it.',
    },
    source: {
      type: 'string',
      pattern: '^stellar:[0-9]+/C[A-Z2-7]{55}$',
      description: 'stellar:<network_id>/<contract>: the contract that emitted the event (the pool or campaign for derived events).',
    },
    type: { type: 'string', description: 'io.dobprotocol.<EventType>.v<schema version>' },
    subject: { ...STRKEY_CONTRACT, description: 'The pool or campaign address the event belongs to (= the message key).' },
    time: { type: 'string', format: 'date-time', description: 'Ledger close time (chain events) or observation time.' },
    datacontenttype: { const: 'application/json' },
    partitionkey: { ...STRKEY_CONTRACT, description: 'CloudEvents Partitioning extension: the Kafka message key.' },
    position: {
      type: 'string',
      pattern: '^[0-9]+:[0-9]+$',
      description: 'Global position in the event store (commit:prepare); increases along each key.',
    },
    ledger: { type: 'integer', minimum: 0, description: 'Chain events: ledger sequence.' },
    txhash: { type: 'string', pattern: '^[0-9a-f]{64}$', description: 'Chain events: transaction hash.' },
    chaineventid: { type: 'string', minLength: 1, description: 'Chain events: the Stellar RPC event id.' },
    data: { type: 'object' },
  },
};

const HEADERS: Json = {
  type: 'object',
  required: ['content-type', 'ce_id', 'ce_type'],
  properties: {
    'content-type': { const: STRUCTURED_CONTENT_TYPE },
    ce_id: { type: 'string', description: 'Same as the CloudEvent id.' },
    ce_type: { type: 'string', description: 'Same as the CloudEvent type.' },
  },
};

/** zod 4's draft-07 output, minus the per-schema `$schema` (the document declares its dialect once). */
function dataSchema(schema: z.ZodType): Json {
  const { $schema: _drop, ...rest } = z.toJSONSchema(schema, { target: 'draft-7' }) as Json;
  return rest;
}

const channelId = (t: AnalystTopic) => t.name;
const operationId = (t: AnalystTopic) => `receive${t.name[0]!.toUpperCase()}${t.name.slice(1)}`;

export function buildAsyncApiDocument(catalog: EventCatalog, o: AsyncApiOptions = {}): Json {
  const messages: Json = {};
  const schemas: Json = { CloudEventEnvelope: CLOUD_EVENT_ENVELOPE, AnalystHeaders: HEADERS };
  const relayed = [...new Set(ANALYST_TOPICS.flatMap((t) => t.eventTypes))].sort();
  for (const type of relayed) {
    const def = catalog.get(type);
    const ceType = cloudEventType(type, def.version);
    schemas[`${type}Data`] = dataSchema(def.schema as z.ZodType);
    messages[type] = {
      name: type,
      title: type,
      summary: `${ceType} on ${ANALYST_TOPICS.filter((t) => t.eventTypes.includes(type))
        .map((t) => t.topic)
        .join(', ')}`,
      contentType: 'application/cloudevents+json',
      headers: { $ref: '#/components/schemas/AnalystHeaders' },
      payload: {
        allOf: [
          { $ref: '#/components/schemas/CloudEventEnvelope' },
          {
            type: 'object',
            properties: { type: { const: ceType }, data: { $ref: `#/components/schemas/${type}Data` } },
          },
        ],
      },
      bindings: { kafka: { key: { ...STRKEY_CONTRACT, description: 'The pool or campaign address.' }, bindingVersion: '0.5.0' } },
    };
  }

  const channels: Json = {};
  const operations: Json = {};
  for (const t of ANALYST_TOPICS) {
    const refs = Object.fromEntries([...t.eventTypes].sort().map((type) => [type, { $ref: `#/components/messages/${type}` }]));
    channels[channelId(t)] = {
      address: t.topic,
      title: t.topic,
      description:
        `${t.summary} Keyed by the pool (or campaign) contract address: one key's events are in one ` +
        'partition, in event-store order. Delivered at least once: deduplicate on the CloudEvent id.',
      messages: refs,
      bindings: { kafka: { partitions: o.partitions ?? 3, replicas: o.replicationFactor ?? 1, bindingVersion: '0.5.0' } },
    };
    operations[operationId(t)] = {
      action: 'receive',
      title: `Consume ${t.topic}`,
      channel: { $ref: `#/channels/${channelId(t)}` },
      messages: Object.keys(refs).map((type) => ({ $ref: `#/channels/${channelId(t)}/messages/${type}` })),
    };
  }

  return {
    asyncapi: '3.0.0',
    info: {
      title: 'DobProtocol domain events for analysts',
      version: o.version ?? '1.0.0',
      description:
        'Every domain event of the DobProtocol agent backend (pools, marketplace, crowdfunding, distributions) as a ' +
        'CloudEvents 1.0 JSON document on Kafka. Produced by the kafka relay from the event store: at least once, ' +
        'in order per key (pool or campaign address). Money is a decimal string of base units, addresses are ' +
        'Stellar strkeys. Generated from the domain event catalog; see docs/kafka.md.',
    },
    defaultContentType: 'application/cloudevents+json',
    servers: {
      local: { host: '127.0.0.1:9092', protocol: 'kafka', description: 'The broker `npm run services` starts.' },
    },
    channels,
    operations,
    components: { schemas, messages },
  };
}

/** The committed document's text: stable key order and a trailing newline, so regeneration is a no-op diff. */
export function renderAsyncApiDocument(catalog: EventCatalog, o?: AsyncApiOptions): string {
  return `${JSON.stringify(buildAsyncApiDocument(catalog, o), null, 2)}\n`;
}
