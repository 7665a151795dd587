import type { AnalystMessage } from './cloud-event';

export interface TopicSpec {
  readonly name: string;
  readonly partitions: number;
  readonly replicationFactor: number;
}

/**
 * Where the relay sends analyst messages: a log with per-key order (Kafka through kafkajs; a fake in unit tests).
 * The relay's guarantees rest on two promises of an adapter:
 * - `publish` resolves only once the broker acknowledged every message (all in-sync replicas), and rejects
 *   otherwise — the relay then retries the whole batch, so a failure yields duplicates, never a gap;
 * - messages with the same key keep the order they were given in, within a call and across calls made one after
 *   another.
 */
export interface EventPublisher {
  /** Creates the topics that do not exist yet; existing topics are left as they are. */
  ensureTopics(topics: readonly TopicSpec[]): Promise<void>;
  publish(messages: readonly AnalystMessage[]): Promise<void>;
  close(): Promise<void>;
}
