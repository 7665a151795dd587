import { Kafka, Partitioners, logLevel, type LogEntry, type Message, type Producer, type ProducerConfig, type RetryOptions } from 'kafkajs';
import type { AnalystMessage } from '../cloud-event';
import type { EventPublisher, TopicSpec } from '../event-publisher.port';
import { partitionRequests } from './partition-requests';
import { fixKafkajsRequestQueue } from './request-queue-fix';

fixKafkajsRequestQueue();

export interface KafkajsPublisherOptions {
  readonly brokers: readonly string[];
  readonly clientId?: string;
  /** TCP connect timeout per broker (kafkajs default 1000 ms). */
  readonly connectionTimeoutMs?: number;
  /** How long one request may take before it fails (kafkajs default 30 s). */
  readonly requestTimeoutMs?: number;
  /** Upper bound on the bytes of one produce request; larger batches go out as several requests, in order. */
  readonly maxRequestBytes?: number;
  readonly log?: (line: string) => void;
}

/**
 * The Kafka adapter (kafkajs 2.2.4, the design card's client; proven against Apache Kafka 4.1 KRaft in
 * kafkajs-publisher.int-spec.ts). One idempotent producer (acks = all, one request in flight per broker, one
 * partition per request and each partition's requests one after another, so per-partition order holds even when
 * kafkajs retries). Its own retries are kept short (`retry.retries: 2`): a broker outage must
 * surface to the relay fast, which retries the whole batch with backoff and reports itself degraded meanwhile.
 * After any failed send the producer is dropped and the next publish starts a new producer session (new producer
 * id, sequence numbers from 0), so a half-failed session can never wedge the relay on OUT_OF_ORDER_SEQUENCE.
 * kafkajs docs: https://kafka.js.org/docs/producing (idempotent, acks), https://kafka.js.org/docs/admin (createTopics).
 */
const RETRY: RetryOptions = { retries: 2, initialRetryTime: 100, maxRetryTime: 1000 };

/** The producer the relay uses; exported so the benchmark's raw-kafkajs baseline runs with the very same settings. */
export const RELAY_PRODUCER_CONFIG: ProducerConfig = {
  idempotent: true,
  maxInFlightRequests: 1,
  // kafkajs 2 default: murmur2 as the Java client hashes keys (kafkajs PR #358, migration guide v2.0.0).
  createPartitioner: Partitioners.DefaultPartitioner,
  retry: RETRY,
};

/** Client settings of the relay (timeouts in ms); the benchmark's baseline shares them too. */
export const RELAY_CLIENT_SETTINGS = { connectionTimeout: 3000, requestTimeout: 10_000, retry: RETRY } as const;

export function createKafkajsPublisher(options: KafkajsPublisherOptions): EventPublisher {
  return new KafkajsPublisher(options);
}

class KafkajsPublisher implements EventPublisher {
  private readonly kafka: Kafka;
  private producer?: Promise<Producer>;
  private readonly maxRequestBytes: number;
  /** Each topic's partition count, as the brokers last told it (read again after any failed send). */
  private readonly partitionCounts = new Map<string, number>();

  constructor(private readonly options: KafkajsPublisherOptions) {
    const log = options.log ?? (() => undefined);
    this.maxRequestBytes = options.maxRequestBytes ?? 512 * 1024;
    this.kafka = new Kafka({
      clientId: options.clientId ?? 'dob-kafka-relay',
      brokers: [...options.brokers],
      connectionTimeout: options.connectionTimeoutMs ?? RELAY_CLIENT_SETTINGS.connectionTimeout,
      requestTimeout: options.requestTimeoutMs ?? RELAY_CLIENT_SETTINGS.requestTimeout,
      retry: RELAY_CLIENT_SETTINGS.retry,
      logLevel: logLevel.WARN,
      logCreator: () => (entry: LogEntry) => {
        // Expected consequences of our own choices, not news: limited retries on the idempotent producer (see
        // above) and the v2 partitioner notice (we pick it explicitly).
        if (/Limiting retries for the idempotent producer|switched default partitioner/.test(entry.log.message)) return;
        log(`[kafkajs] ${logLevel[entry.level]} ${entry.namespace}: ${entry.log.message}${entry.log.error ? ` (${entry.log.error})` : ''}`);
      },
    });
  }

  async ensureTopics(topics: readonly TopicSpec[]): Promise<void> {
    await this.withAdmin(async (admin) => {
      const existing = new Set(await admin.listTopics());
      const missing = topics.filter((t) => !existing.has(t.name));
      if (missing.length > 0) {
        await admin.createTopics({
          waitForLeaders: true,
          topics: missing.map((t) => ({ topic: t.name, numPartitions: t.partitions, replicationFactor: t.replicationFactor })),
        });
        this.options.log?.(`[kafka] created topics ${missing.map((t) => `${t.name} (${t.partitions}×${t.replicationFactor})`).join(', ')}`);
      }
      await this.readPartitionCounts(
        admin,
        topics.map((t) => t.name),
      );
    });
  }

  async publish(messages: readonly AnalystMessage[]): Promise<void> {
    if (messages.length === 0) return;
    const producer = await this.connectedProducer();
    try {
      const unknown = [...new Set(messages.map((m) => m.topic))].filter((t) => !this.partitionCounts.has(t));
      if (unknown.length > 0) await this.withAdmin((admin) => this.readPartitionCounts(admin, unknown));
      // One partition per produce request (partition-requests.ts says why: kafkajs loses a partition whose leader
      // moved to a broker that had already answered the same send). Partitions go out side by side; within one,
      // chunks go out one after another, the next only once the previous one was acknowledged.
      const requests = partitionRequests(messages, (topic) => this.partitionCounts.get(topic)!);
      const sent = await Promise.allSettled(
        requests.map(async ({ topic, messages: inPartition }) => {
          for (const chunk of chunksByBytes(inPartition, this.maxRequestBytes)) await producer.send({ topic, acks: -1, messages: chunk });
        }),
      );
      const failed = sent.find((r): r is PromiseRejectedResult => r.status === 'rejected');
      if (failed) throw failed.reason;
    } catch (e) {
      await this.dropProducer();
      throw e;
    }
  }

  private async withAdmin<T>(use: (admin: ReturnType<Kafka['admin']>) => Promise<T>): Promise<T> {
    const admin = this.kafka.admin();
    await admin.connect();
    try {
      return await use(admin);
    } finally {
      await admin.disconnect();
    }
  }

  private async readPartitionCounts(admin: ReturnType<Kafka['admin']>, topics: readonly string[]): Promise<void> {
    const { topics: metadata } = await admin.fetchTopicMetadata({ topics: [...topics] });
    for (const t of metadata) this.partitionCounts.set(t.name, t.partitions.length);
  }

  async close(): Promise<void> {
    await this.dropProducer();
  }

  private connectedProducer(): Promise<Producer> {
    this.producer ??= (async () => {
      const producer = this.kafka.producer(RELAY_PRODUCER_CONFIG);
      await producer.connect();
      return producer;
    })();
    const current = this.producer;
    current.catch(() => {
      if (this.producer === current) this.producer = undefined;
    });
    return current;
  }

  private async dropProducer(): Promise<void> {
    const current = this.producer;
    this.producer = undefined;
    this.partitionCounts.clear(); // a topic may have been re-created or grown meanwhile
    const producer = await current?.catch(() => undefined);
    // A disconnect from a dead broker can wait for request timeouts: bounded, and a failure changes nothing.
    if (producer) await Promise.race([producer.disconnect().catch(() => undefined), new Promise((r) => setTimeout(r, 2000).unref())]);
  }
}

function* chunksByBytes(messages: readonly Message[], maxBytes: number): Generator<Message[]> {
  let chunk: Message[] = [];
  let bytes = 0;
  for (const m of messages) {
    const size = Buffer.byteLength(m.value as string) + String(m.key).length + 128;
    if (chunk.length > 0 && bytes + size > maxBytes) {
      yield chunk;
      chunk = [];
      bytes = 0;
    }
    chunk.push(m);
    bytes += size;
  }
  if (chunk.length) yield chunk;
}
