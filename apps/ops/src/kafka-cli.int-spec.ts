import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { createSqlEventStore, positionToString, type EventStore } from '@dob/event-store';
import { ANALYST_TOPICS, KafkaRelay, createKafkajsPublisher } from '@dob/kafka-relay';
import { createSqlReadModelStore } from '@dob/projections';
import { createPostgresDatabase, type SqlDatabase } from '@dob/sql';
import { TEST_POSTGRES_URL, testSchemaName } from '../../../libs/sql/src/testing/test-databases';
import { systemEventCatalog } from '@dob/runtime';
import { flowBatch } from '../../../libs/kafka-relay/src/testing/event-flow';
import { deleteTestTopics, startTopicReader } from '../../../libs/kafka-relay/src/testing/topic-reader';
import { testServices } from '../../../test/services';

const ROOT = join(__dirname, '../../..');

/** `ops kafka status | replay` on PostgreSQL against the shared Kafka 4.1, topics under a prefix of this run. */
describe('ops kafka', () => {
  const schema = testSchemaName();
  const prefix = `${schema}.`;
  const topics = ANALYST_TOPICS.map((t) => `${prefix}${t.topic}`);
  const env = {
    DATABASE_URL: `${TEST_POSTGRES_URL}?options=-c%20search_path%3D${schema}`,
    KAFKA_TOPIC_PREFIX: prefix,
    KAFKA_BROKERS: testServices.kafkaBrokers.join(','),
  };
  const ops = (args: string[], extra: Record<string, string> = {}) =>
    spawnSync(process.execPath, ['-r', join(__dirname, '../../../scripts/register.js'), join(__dirname, 'main.ts'), ...args], {
      cwd: ROOT,
      env: { ...process.env, NODE_OPTIONS: '', ...env, ...extra },
      encoding: 'utf8',
    });
  let db: SqlDatabase;
  let store: EventStore;

  beforeAll(async () => {
    db = await createPostgresDatabase({ connectionString: TEST_POSTGRES_URL, schema });
    store = await createSqlEventStore(db, { catalog: systemEventCatalog() });
    await store.appendMany(flowBatch('ops', 0, 30, 4));
    const publisher = createKafkajsPublisher({ brokers: testServices.kafkaBrokers });
    const relay = new KafkaRelay({ events: store, checkpoints: createSqlReadModelStore(db), publisher, topicPrefix: prefix });
    relay.start();
    await relay.waitUntilCaughtUp();
    await relay.stop();
    await publisher.close();
  });
  afterAll(async () => {
    await deleteTestTopics(testServices.kafkaBrokers, topics);
    await store.close();
    await db.close();
  });

  it('status: checkpoint, published, and lag in events and seconds once new events wait', async () => {
    const caughtUp = ops(['kafka', 'status', '--json']);
    expect(caughtUp.stderr).toBe('');
    expect(JSON.parse(caughtUp.stdout)).toMatchObject({
      checkpoint: `kafka_relay_${schema}`,
      status: 'live',
      eventsPublished: 30,
      lagEvents: 0,
      lagSeconds: 0,
    });

    await store.appendMany(flowBatch('ops', 30, 35, 4));
    await new Promise((r) => setTimeout(r, 1100));
    const behind = JSON.parse(ops(['kafka', 'status', '--json']).stdout);
    expect(behind).toMatchObject({ eventsPublished: 30, lagEvents: 5 });
    expect(behind.lagSeconds).toBeGreaterThanOrEqual(1);
    expect(ops(['kafka', 'status']).stdout).toMatch(/kafka_relay_\S+\s+live\s+\d+:\d+\s+\d+:\d+\s+30\s+5\s/);
  });

  it('replay re-publishes what the relay published (from the beginning, or from a position inclusive)', async () => {
    const all = (await store.readAll({ maxCount: 100 })).events;
    const fromBeginning = ops(['kafka', 'replay', '--from', 'beginning']);
    expect(fromBeginning.stderr).toBe('');
    expect(fromBeginning.stdout).toContain('re-published 30 events');

    const tenth = positionToString(all[9]!.position);
    const fromTenth = ops(['kafka', 'replay', '--from', tenth, '--to', positionToString(all[29]!.position)]);
    expect(fromTenth.stdout).toContain('re-published 21 events');

    const reader = await startTopicReader(testServices.kafkaBrokers, topics);
    try {
      await reader.waitFor('30 + 30 + 21 messages', (m) => m.length >= 81, 30_000);
      const copies = new Map<string, number>();
      for (const m of reader.messages) copies.set(m.headers.ce_id!, (copies.get(m.headers.ce_id!) ?? 0) + 1);
      expect(all.slice(0, 9).map((e) => copies.get(e.id))).toEqual(Array(9).fill(2));
      expect(all.slice(9, 30).map((e) => copies.get(e.id))).toEqual(Array(21).fill(3));
      expect(all.slice(30).map((e) => copies.get(e.id))).toEqual(Array(5).fill(undefined)); // past the checkpoint
    } finally {
      await reader.stop();
    }
  });

  it('refuses a replay without brokers or with a bad position, with one clear line and exit 1', () => {
    const noBrokers = ops(['kafka', 'replay', '--from', 'beginning'], { KAFKA_BROKERS: '' });
    expect([noBrokers.status, noBrokers.stderr.trim()]).toEqual([1, 'KAFKA_BROKERS is not set: replay needs the brokers to publish to']);
    const bad = ops(['kafka', 'replay', '--from', 'yesterday']);
    expect(bad.status).toBe(1);
    expect(bad.stderr).toContain('--from must be "beginning" or a position commit:prepare');
  });
});
