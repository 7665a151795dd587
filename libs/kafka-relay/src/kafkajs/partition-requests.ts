import { Partitioners, type Message, type PartitionMetadata } from 'kafkajs';
import type { AnalystMessage } from '../cloud-event';

/** One produce request: messages of one topic partition, in the order the relay read them. */
export interface PartitionRequest {
  readonly topic: string;
  readonly partition: number;
  readonly messages: Message[];
}

/** kafkajs's own default partitioner (keyed messages: murmur2 of the key; its round-robin state is never used). */
const pickPartition = Partitioners.DefaultPartitioner();

/**
 * The relay's messages grouped into one produce request per topic partition, each message naming its partition.
 *
 * Why: kafkajs 2.2.4 keeps, across the retries of one send, the acknowledgements of the brokers that already
 * answered it. When a partition's leader dies mid-send and leadership moves to a broker that had answered for
 * other partitions, the retry sends nothing to that broker, so the moved partition's messages are never written and
 * the send resolves as if they were (tulios/kafkajs#1303; the fix, #1798, is unreleased — kafkajs has had no release
 * since 2023). The fault suite saw it: in 4 of 13 runs with broker kills, two events of one transaction that the
 * relay had checkpointed were on no topic (a fresh consumer group read from the first offset did not find them). With one partition
 * per request each attempt has exactly one broker: a failed attempt leaves nothing acknowledged, and the retry goes
 * to the new leader.
 *
 * The partition is the one kafkajs's default partitioner picks for the key (murmur2 as the Java client, modulo the
 * topic's partition count), so keys land where they did before; only the number of partitions is needed for that.
 */
export function partitionRequests(messages: readonly AnalystMessage[], partitionCount: (topic: string) => number): PartitionRequest[] {
  const requests = new Map<string, PartitionRequest>();
  for (const m of messages) {
    const partition = pickPartition({ topic: m.topic, partitionMetadata: partitionsOf(partitionCount(m.topic)), message: { key: m.key, value: m.value } });
    const id = `${m.topic}\u0000${partition}`;
    let request = requests.get(id);
    if (!request) requests.set(id, (request = { topic: m.topic, partition, messages: [] }));
    request.messages.push({ key: m.key, value: m.value, headers: { ...m.headers }, partition });
  }
  return [...requests.values()];
}

const metadataByCount = new Map<number, PartitionMetadata[]>();

/** What the partitioner reads of a topic's metadata: its partitions (only their number matters for keyed messages). */
function partitionsOf(count: number): PartitionMetadata[] {
  if (!Number.isSafeInteger(count) || count < 1) throw new Error(`a topic has at least one partition, got ${count}`);
  let metadata = metadataByCount.get(count);
  if (!metadata) {
    metadata = Array.from({ length: count }, (_, partitionId) => ({ partitionErrorCode: 0, partitionId, leader: 0, replicas: [0], isr: [0] }));
    metadataByCount.set(count, metadata);
  }
  return metadata;
}
