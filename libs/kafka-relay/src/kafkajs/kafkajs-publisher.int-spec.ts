import { randomBytes } from 'node:crypto';
import { Kafka, Partitioners, logLevel } from 'kafkajs';
import { testServices } from '../../../../test/services';
import type { AnalystMessage } from '../cloud-event';
import { startTopicReader } from '../testing/topic-reader';
import { createKafkajsPublisher } from './kafkajs-publisher';
import { fixKafkajsRequestQueue } from './request-queue-fix';

const message = (topic: string, key: string, n: number): AnalystMessage => ({
  topic,
  key,
  value: JSON.stringify({ id: `id-${n}`, n }),
  headers: { 'content-type': 'application/cloudevents+json; charset=UTF-8', ce_id: `id-${n}`, ce_type: 'test.v1' },
  eventId: `id-${n}`,
});

/** kafkajs 2.2.4 against the Apache Kafka 4.1 (KRaft) broker `npm run services` runs: what the relay relies on. */
describe('kafkajs publisher on Apache Kafka 4.1', () => {
  const brokers = testServices.kafkaBrokers;
  const prefix = `t${randomBytes(4).toString('hex')}.`;
  const a = `${prefix}a`;
  const b = `${prefix}b`;
  const kafka = new Kafka({ clientId: 'publisher-int-spec', brokers, logLevel: logLevel.NOTHING });

  afterAll(async () => {
    const admin = kafka.admin();
    await admin.connect();
    await admin.deleteTopics({ topics: [a, b] }).catch(() => undefined);
    await admin.disconnect();
  });

  it('creates missing topics with the asked partitions, and leaves existing ones alone', async () => {
    const publisher = createKafkajsPublisher({ brokers });
    try {
      await publisher.ensureTopics([{ name: a, partitions: 4, replicationFactor: 1 }]);
      await publisher.ensureTopics([
        { name: a, partitions: 9, replicationFactor: 1 },
        { name: b, partitions: 2, replicationFactor: 1 },
      ]);
    } finally {
      await publisher.close();
    }
    const admin = kafka.admin();
    await admin.connect();
    const meta = await admin.fetchTopicMetadata({ topics: [a, b] });
    await admin.disconnect();
    expect(Object.fromEntries(meta.topics.map((t) => [t.name, t.partitions.length]))).toEqual({ [a]: 4, [b]: 2 });
  });

  it('publishes idempotently with acks=all: one key stays in one partition, in the order given, headers intact', async () => {
    const publisher = createKafkajsPublisher({ brokers, maxRequestBytes: 4096 }); // small: forces several requests
    const keys = ['CPOOLONE', 'CPOOLTWO', 'CPOOLTHREE', 'CPOOLFOUR', 'CPOOLFIVE'];
    const sent = Array.from({ length: 400 }, (_, n) => message(n % 2 ? a : b, keys[n % keys.length]!, n));
    try {
      await publisher.publish(sent.slice(0, 150));
      await publisher.publish(sent.slice(150));
    } finally {
      await publisher.close();
    }
    const admin = kafka.admin();
    await admin.connect();
    const meta = await admin.fetchTopicMetadata({ topics: [a, b] });
    await admin.disconnect();
    const reader = await startTopicReader(brokers, [a, b]);
    try {
      await reader.waitFor('all 400 messages', (m) => m.length >= 400, 60_000);
      const got = [...reader.messages].sort((x, y) => x.partition - y.partition || Number(x.offset - y.offset));
      expect(got).toHaveLength(400);
      for (const topic of [a, b]) {
        for (const key of keys) {
          const mine = got.filter((m) => m.topic === topic && m.key === key);
          expect(new Set(mine.map((m) => m.partition)).size).toBe(1);
          // the partition kafkajs's default partitioner picks for the key (the relay names it; keys stay where they were)
          const partitionMetadata = meta.topics.find((t) => t.name === topic)!.partitions;
          expect(mine[0]?.partition).toBe(Partitioners.DefaultPartitioner()({ topic, partitionMetadata, message: { key, value: null } }));
          const order = mine.map((m) => JSON.parse(m.value).n as number);
          expect(order).toEqual(sent.filter((s) => s.topic === topic && s.key === key).map((s) => JSON.parse(s.value).n));
        }
      }
      expect(got.find((m) => m.headers.ce_id === 'id-7')).toMatchObject({
        headers: { ce_type: 'test.v1', 'content-type': expect.stringContaining('cloudevents') },
      });
    } finally {
      await reader.stop();
    }
  });

  it('rejects, within seconds, when no broker answers (the relay then retries with backoff)', async () => {
    const publisher = createKafkajsPublisher({ brokers: ['127.0.0.1:1'], connectionTimeoutMs: 500 });
    const started = Date.now();
    await expect(publisher.publish([message(a, 'k', 1)])).rejects.toThrow();
    await expect(publisher.ensureTopics([{ name: a, partitions: 1, replicationFactor: 1 }])).rejects.toThrow();
    expect(Date.now() - started).toBeLessThan(15_000);
    await publisher.close();
  });

  it('no longer re-arms a 1 ms timer per connection (kafkajs#1751): no negative timeouts, no TimeoutNegativeWarning', async () => {
    expect(fixKafkajsRequestQueue()).toBe('patched');
    const warnings: string[] = [];
    const onWarning = (w: Error) => void (w.name === 'TimeoutNegativeWarning' && warnings.push(w.message));
    process.on('warning', onWarning);
    const realSetTimeout = global.setTimeout;
    const arm = realSetTimeout as (...args: unknown[]) => NodeJS.Timeout;
    let negative = 0;
    const spy = jest.spyOn(global, 'setTimeout').mockImplementation(((fn: () => void, ms?: number, ...rest: unknown[]) => {
      if (typeof ms === 'number' && ms < 0) negative += 1;
      return arm(fn, ms, ...rest);
    }) as typeof setTimeout);
    const publisher = createKafkajsPublisher({ brokers });
    try {
      await publisher.publish([message(a, 'k', 1)]);
      await new Promise((r) => realSetTimeout(r, 1000)); // idle: the old code armed ~1000 timers here
    } finally {
      spy.mockRestore();
      await publisher.close();
      process.off('warning', onWarning);
    }
    expect({ negative, warnings }).toEqual({ negative: 0, warnings: [] });
  });
});
