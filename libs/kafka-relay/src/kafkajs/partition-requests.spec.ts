import { Partitioners } from 'kafkajs';
import type { AnalystMessage } from '../cloud-event';
import { partitionRequests } from './partition-requests';

const message = (topic: string, key: string, n: number): AnalystMessage => ({
  topic,
  key,
  value: JSON.stringify({ n }),
  headers: { ce_id: `id-${n}` },
  eventId: `id-${n}`,
});

/** What kafkajs would pick for the key when the message names no partition: the contract kept. */
function kafkajsPick(topic: string, key: string, count: number): number {
  const partitionMetadata = Array.from({ length: count }, (_, partitionId) => ({
    partitionErrorCode: 0,
    partitionId,
    leader: partitionId % 3,
    replicas: [1, 2, 3],
    isr: [1, 2, 3],
  }));
  return Partitioners.DefaultPartitioner()({ topic, partitionMetadata, message: { key, value: null } });
}

describe('partitionRequests', () => {
  const counts: Record<string, number> = { pools: 6, campaigns: 3 };
  const keys = ['CPOOLA', 'CPOOLB', 'CPOOLC', 'CPOOLD', 'CPOOLE', 'CPOOLF', 'CPOOLG'];
  const messages = Array.from({ length: 60 }, (_, n) => message(n % 3 ? 'pools' : 'campaigns', keys[n % keys.length]!, n));
  const requests = partitionRequests(messages, (t) => counts[t]!);

  it('makes one request per topic partition, every message naming that partition', () => {
    const ids = requests.map((r) => `${r.topic}#${r.partition}`);
    expect(new Set(ids).size).toBe(ids.length);
    for (const r of requests) for (const m of r.messages) expect(m.partition).toBe(r.partition);
    expect(requests.reduce((n, r) => n + r.messages.length, 0)).toBe(messages.length);
  });

  it("puts each key where kafkajs's default partitioner would (murmur2 modulo the topic's partitions)", () => {
    for (const r of requests) for (const m of r.messages) expect(r.partition).toBe(kafkajsPick(r.topic, String(m.key), counts[r.topic]!));
    // and not everything in one partition: the keys spread
    expect(new Set(requests.filter((r) => r.topic === 'pools').map((r) => r.partition)).size).toBeGreaterThan(1);
  });

  it('keeps the order of the messages within each partition, headers and values intact', () => {
    for (const r of requests) {
      const order = r.messages.map((m) => (JSON.parse(m.value as string) as { n: number }).n);
      expect(order).toEqual([...order].sort((x, y) => x - y));
      for (const m of r.messages) expect(m.headers).toEqual({ ce_id: `id-${(JSON.parse(m.value as string) as { n: number }).n}` });
    }
  });

  it('refuses a topic without partitions rather than guessing', () => {
    expect(() => partitionRequests([message('x', 'k', 1)], () => 0)).toThrow(/at least one partition/);
  });
});
