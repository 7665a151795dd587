/**
 * Kafka relay on PostgreSQL → the Apache Kafka 4.1 broker of `npm run services` (127.0.0.1:9092, or
 * TEST_KAFKA_BROKERS), same machine.
 * - throughput: 50,000 events already in the store; the relay from START until its checkpoint is at the head
 *   (read pages of 500 → CloudEvents → idempotent produce acks=all → checkpoint), against the same-run baseline of a
 *   raw kafkajs producer sending the very same messages (same topics, keys, values, headers, batch size and
 *   producer settings) with nothing else to do. Each run in a fresh Node process of its own (like bench/run.ts does
 *   per benchmark: one run's heap and sockets never colour the other's), setup outside the timed part. Three rounds,
 *   the order flipped each round (the shared machine's load drifts), each on fresh topics; the ratio is the median
 *   of the per-round ratios. Goal ≥ 50 %.
 * - latency: a steady 200 events/s for 15 s appended while the relay is live; append committed → a kafkajs
 *   consumer (maxWaitTimeInMs 100) has the message, p50/p99.
 *   npm run bench -- kafka   → bench/results/kafka.json
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { Kafka, logLevel, type TopicMessages } from 'kafkajs';
import { createSqlEventStore, type EventStore } from '@dob/event-store';
import {
  ANALYST_TOPICS,
  KafkaRelay,
  RELAYED_EVENT_TYPES,
  RELAY_CLIENT_SETTINGS,
  RELAY_PRODUCER_CONFIG,
  createKafkajsPublisher,
  fixKafkajsRequestQueue,
  toAnalystMessage,
  type AnalystMessage,
} from '@dob/kafka-relay';
import { createSqlReadModelStore } from '@dob/projections';
import { createPostgresDatabase, type SqlDatabase } from '@dob/sql';
import { TEST_POSTGRES_URL } from '../libs/sql/src/testing/test-databases';
import { systemEventCatalog } from '@dob/runtime';
import { flowBatch } from '../libs/kafka-relay/src/testing/event-flow';
import { startTopicReader } from '../libs/kafka-relay/src/testing/topic-reader';
import { runWhenMain, startMachineRecord, writeBenchResult } from './bench-report';

const EVENTS = 50_000;
const POOLS = 24;
const BATCH = 500;
const PARTITIONS = 3;
const ROUNDS = 3;
const RATE = 200;
const SECONDS = 15;
const brokers = (process.env.TEST_KAFKA_BROKERS ?? '127.0.0.1:9092').split(',');

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
const topicsOf = (prefix: string) => ANALYST_TOPICS.map((t) => `${prefix}${t.topic}`);

fixKafkajsRequestQueue();
const kafka = new Kafka({ clientId: 'bench-kafka', brokers, logLevel: logLevel.NOTHING, ...RELAY_CLIENT_SETTINGS });

async function createTopics(prefix: string): Promise<void> {
  const admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({ waitForLeaders: true, topics: topicsOf(prefix).map((topic) => ({ topic, numPartitions: PARTITIONS, replicationFactor: 1 })) });
  await admin.disconnect();
}

/** Every message of a run is on the broker (sum of the topics' high watermarks), or the run does not count. */
async function expectOnBroker(prefix: string, expected: number): Promise<void> {
  const admin = kafka.admin();
  await admin.connect();
  let n = 0;
  for (const topic of topicsOf(prefix)) for (const o of await admin.fetchTopicOffsets(topic)) n += Number(o.high);
  await admin.disconnect();
  if (n !== expected) throw new Error(`${prefix}*: ${n} messages on the broker, expected ${expected}`);
}

async function deleteTopics(prefixes: string[]): Promise<void> {
  const admin = kafka.admin();
  await admin.connect();
  await admin.deleteTopics({ topics: prefixes.flatMap(topicsOf) }).catch(() => undefined);
  await admin.disconnect();
}

/**
 * The baseline: a plain kafkajs producer with the relay's client and producer settings (the exported constants),
 * sending the pre-built messages page by page. Timed from connect, as the relay's run is timed from its start.
 */
async function rawProducer(messages: readonly AnalystMessage[], prefix: string): Promise<number> {
  await createTopics(prefix);
  const producer = kafka.producer(RELAY_PRODUCER_CONFIG);
  const started = performance.now();
  await producer.connect();
  for (let i = 0; i < messages.length; i += BATCH) {
    const byTopic = new Map<string, TopicMessages>();
    for (const m of messages.slice(i, i + BATCH)) {
      const topic = `${prefix}${m.topic}`;
      const t = byTopic.get(topic) ?? { topic, messages: [] };
      t.messages.push({ key: m.key, value: m.value, headers: { ...m.headers } });
      byTopic.set(topic, t);
    }
    await producer.sendBatch({ acks: -1, topicMessages: [...byTopic.values()] });
  }
  const ms = performance.now() - started;
  await producer.disconnect();
  await expectOnBroker(prefix, messages.length);
  return Math.round((messages.length / ms) * 1000);
}

/** The relay from START to the head of a store that already holds the events. */
async function relayRun(store: EventStore, db: SqlDatabase, prefix: string): Promise<number> {
  const publisher = createKafkajsPublisher({ brokers });
  const relay = new KafkaRelay({
    events: store,
    checkpoints: createSqlReadModelStore(db),
    publisher,
    topicPrefix: prefix,
    partitions: PARTITIONS,
    batchSize: BATCH,
  });
  await publisher.ensureTopics(topicsOf(prefix).map((name) => ({ name, partitions: PARTITIONS, replicationFactor: 1 })));
  const started = performance.now();
  relay.start();
  await relay.waitUntilCaughtUp(600_000);
  const ms = performance.now() - started;
  await relay.stop();
  await publisher.close();
  await expectOnBroker(prefix, EVENTS);
  return Math.round((EVENTS / ms) * 1000);
}

/** One timed run in this (fresh) process: `kafka.bench.ts child` with BENCH_MODE, BENCH_SCHEMA, BENCH_PREFIX. */
async function runChild(): Promise<number> {
  const db = await createPostgresDatabase({ connectionString: TEST_POSTGRES_URL, schema: process.env.BENCH_SCHEMA! });
  const store = await createSqlEventStore(db, { catalog: systemEventCatalog(), pollIntervalMs: 1000 });
  try {
    if (process.env.BENCH_MODE === 'relay') return await relayRun(store, db, process.env.BENCH_PREFIX!);
    const stored = (await store.readAll({ maxCount: EVENTS, types: RELAYED_EVENT_TYPES })).events;
    return await rawProducer(
      stored.map((e) => toAnalystMessage(e)!),
      process.env.BENCH_PREFIX!,
    );
  } finally {
    await store.close();
    await db.close();
  }
}

function timedRunInChild(mode: 'raw' | 'relay', schema: string, prefix: string): number {
  const r = spawnSync(process.execPath, ['-r', '@swc-node/register', __filename, 'child'], {
    env: { ...process.env, BENCH_MODE: mode, BENCH_SCHEMA: schema, BENCH_PREFIX: prefix },
    encoding: 'utf8',
    timeout: 600_000,
  });
  const line = r.stdout.split('\n').find((l) => l.startsWith('RESULT '));
  if (r.status !== 0 || !line) throw new Error(`${mode} run failed (${r.status}): ${r.stderr}`);
  return Number(line.slice('RESULT '.length));
}

export async function run() {
  const machine = startMachineRecord();
  const schema = `bench_kafka_${randomBytes(4).toString('hex')}`;
  const db = await createPostgresDatabase({ connectionString: TEST_POSTGRES_URL, schema });
  const store = await createSqlEventStore(db, { catalog: systemEventCatalog(), pollIntervalMs: 1000 });
  const prefixes: string[] = [];
  const fresh = () => {
    const p = `bench${randomBytes(3).toString('hex')}.`;
    prefixes.push(p);
    return p;
  };
  try {
    for (let i = 0; i < EVENTS; i += BATCH) await store.appendMany(flowBatch('bench', i, i + BATCH, POOLS));
    const raw: number[] = [];
    const relay: number[] = [];
    let lastRelayPrefix = '';
    const relayInChild = () => {
      lastRelayPrefix = fresh();
      relay.push(timedRunInChild('relay', schema, lastRelayPrefix));
    };
    for (let round = 0; round < ROUNDS; round++) {
      if (round % 2 === 0) {
        raw.push(timedRunInChild('raw', schema, fresh()));
        relayInChild();
      } else {
        relayInChild();
        raw.push(timedRunInChild('raw', schema, fresh()));
      }
      console.log(`round ${round + 1}: raw ${raw.at(-1)} msg/s, relay ${relay.at(-1)} ev/s`);
    }

    // Steady load with the relay live, on the last relay run's topics: its checkpoint is at the head, so only the new
    // events flow; the consumer first reads the 50,000 already there, then the clock starts.
    const live = lastRelayPrefix;
    const publisher = createKafkajsPublisher({ brokers });
    const liveRelay = new KafkaRelay({
      events: store,
      checkpoints: createSqlReadModelStore(db),
      publisher,
      topicPrefix: live,
      partitions: PARTITIONS,
      batchSize: BATCH,
    });
    const reader = await startTopicReader(brokers, topicsOf(live));
    liveRelay.start();
    await liveRelay.waitUntilCaughtUp(600_000);
    await reader.waitFor('the existing messages', (m) => m.length >= EVENTS, 300_000);
    const committedAt = new Map<string, number>();
    const perTick = RATE / 20;
    const started = Date.now();
    for (let tick = 0; tick < SECONDS * 20; tick++) {
      const due = started + tick * 50;
      if (due > Date.now()) await new Promise((r) => setTimeout(r, due - Date.now()));
      const batch = flowBatch('live', tick * perTick, (tick + 1) * perTick, POOLS);
      await store.appendMany(batch);
      const t = Date.now();
      for (const s of batch) for (const e of s.events) committedAt.set(e.id, t);
    }
    await reader.waitFor('the steady load', (m) => m.filter((x) => committedAt.has(x.headers.ce_id!)).length >= committedAt.size, 120_000);
    const latencies = reader.messages
      .filter((m) => committedAt.has(m.headers.ce_id!))
      .map((m) => m.receivedAt - committedAt.get(m.headers.ce_id!)!)
      .sort((a, b) => a - b);
    await reader.stop();
    await liveRelay.stop();
    await publisher.close();

    const ratios = relay.map((r, i) => +(r / raw[i]!).toFixed(2));
    const result = {
      benchmark: 'kafka',
      at: new Date().toISOString(),
      machine: machine('shared 2-core machine; broker = npm run services (Kafka 4.1.1 KRaft, 512 MB heap) on the same host'),
      parameters: {
        database: 'postgres',
        events: EVENTS,
        pools: POOLS,
        batch: BATCH,
        partitionsPerTopic: PARTITIONS,
        producer: 'kafkajs 2.2.4 idempotent, acks=all, maxInFlightRequests 1',
        steadyRatePerSecond: RATE,
        steadySeconds: SECONDS,
      },
      throughput: {
        rawKafkajsProducerMessagesPerSecond: raw,
        relayEventsPerSecond: relay,
        relayVsRawPerRound: ratios,
        relayVsRawMedian: [...ratios].sort((a, b) => a - b)[Math.floor(ratios.length / 2)],
        goal: '≥ 0.5',
      },
      endToEnd: {
        what: 'appendMany committed → consumer has the message (relay woken by NOTIFY; consumer maxWaitTimeInMs 100)',
        messages: latencies.length,
        latencyMs: { p50: pct(latencies, 50), p90: pct(latencies, 90), p99: pct(latencies, 99), max: latencies.at(-1) },
      },
    };
    writeBenchResult('kafka', result);
    return result;
  } finally {
    await deleteTopics(prefixes);
    await store.close();
    await db.close();
  }
}

if (process.argv[2] === 'child') {
  runChild().then(
    (perSecond) => console.log(`RESULT ${perSecond}`),
    (e: unknown) => {
      console.error(e);
      process.exitCode = 1;
    },
  );
} else {
  runWhenMain(module, run);
}
