import { spawn, type ChildProcess } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSqlEventStore, type EventStore } from '@dob/event-store';
import { ANALYST_TOPICS, RelayCheckpoint, relayCheckpointName, type RelayStatus } from '@dob/kafka-relay';
import { createSqlReadModelStore } from '@dob/projections';
import { createPostgresDatabase, type SqlDatabase } from '@dob/sql';
import { TEST_POSTGRES_URL, testSchemaName } from '../../../libs/sql/src/testing/test-databases';
import { systemEventCatalog } from '@dob/runtime';
import { checkDelivery } from '../../../libs/kafka-relay/src/testing/delivery-check';
import { flowBatch } from '../../../libs/kafka-relay/src/testing/event-flow';
import { freePort } from '../../../libs/runtime/src/testing/free-port';
import { startTestBroker, type TestBroker } from '../../../libs/kafka-relay/src/testing/test-broker';
import { startTopicReader } from '../../../libs/kafka-relay/src/testing/topic-reader';

const ROOT = join(__dirname, '../../..');
const POOLS = 24;

async function until(what: string, fn: () => Promise<boolean> | boolean, timeoutMs = 60_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await fn())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

interface World {
  /** Own topic prefix (and so own checkpoint): the two tests share the broker, not their topics. */
  readonly prefix: string;
  readonly topics: string[];
  readonly db: SqlDatabase;
  readonly store: EventStore;
  readonly databaseUrl: string;
  status(): Promise<RelayStatus>;
  close(): Promise<void>;
}

async function world(): Promise<World> {
  const schema = testSchemaName();
  const db = await createPostgresDatabase({ connectionString: TEST_POSTGRES_URL, schema });
  const store = await createSqlEventStore(db, { catalog: systemEventCatalog() });
  const prefix = `${schema}.`;
  const checkpoint = new RelayCheckpoint(createSqlReadModelStore(db), relayCheckpointName(prefix));
  return {
    prefix,
    topics: ANALYST_TOPICS.map((t) => `${prefix}${t.topic}`),
    db,
    store,
    databaseUrl: `${TEST_POSTGRES_URL}?options=-c%20search_path%3D${schema}`,
    status: () => checkpoint.status(store),
    close: async () => {
      await store.close();
      await db.close();
    },
  };
}

/** Appends `total` flow events in batches of `batch`, one batch every `everyMs`, while the test does other things. */
function flow(store: EventStore, run: string, total: number, batch: number, everyMs: number) {
  let appended = 0;
  let stop = false;
  const done = (async () => {
    while (appended < total && !stop) {
      const n = Math.min(batch, total - appended);
      await store.appendMany(flowBatch(run, appended, appended + n, POOLS));
      appended += n;
      await new Promise((r) => setTimeout(r, everyMs));
    }
  })();
  return { done, appended: () => appended, stop: () => void (stop = true) };
}

/**
 * The relay's promises on a real Apache Kafka 4.1 broker owned by this test (own ports and log dir: stopping it
 * never touches the shared broker), with the real `npm run start:relay` process on PostgreSQL.
 */
describe('kafka relay under crashes and a broker outage (test-owned Kafka 4.1, relay child process, PostgreSQL)', () => {
  let broker: TestBroker;
  const children: ChildProcess[] = [];
  const worlds: World[] = [];

  beforeAll(async () => {
    broker = await startTestBroker();
  });
  afterAll(async () => {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    await Promise.all(worlds.map((w) => w.close()));
    await broker?.destroy();
  });

  async function startRelay(w: World): Promise<{ child: ChildProcess; healthUrl: string; exited: Promise<NodeJS.Signals | number | null> }> {
    const port = await freePort();
    const child = spawn(process.execPath, ['-r', join(__dirname, '../../../scripts/register.js'), join(ROOT, 'apps/relay/src/main.ts')], {
      cwd: ROOT,
      env: {
        ...process.env,
        NODE_OPTIONS: '',
        DATABASE_URL: w.databaseUrl,
        DATA_DIR: mkdtempSync(join(tmpdir(), 'relay-')),
        KAFKA_BROKERS: broker.brokers.join(','),
        KAFKA_TOPIC_PREFIX: w.prefix,
        KAFKA_TOPIC_PARTITIONS: '3',
        KAFKA_RELAY_POLL_MS: '100',
        RELAY_HEALTH_PORT: String(port),
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    children.push(child);
    let stderr = '';
    child.stderr!.on('data', (d) => (stderr += d));
    const exited = new Promise<NodeJS.Signals | number | null>((resolve) => child.once('exit', (code, signal) => resolve(signal ?? code)));
    void exited.then((how) => {
      if (how !== 'SIGKILL' && how !== 0) console.error(`relay exited with ${how}: ${stderr}`);
    });
    return { child, healthUrl: `http://127.0.0.1:${port}/health`, exited };
  }

  /** An analyst's view: a fresh consumer from the beginning, deduplicating on the CloudEvent id, against the store. */
  async function consumeAndCheck(w: World, label: string) {
    const stored = (await w.store.readAll({ maxCount: 100_000 })).events;
    const reader = await startTopicReader(broker.brokers, w.topics);
    try {
      await reader.waitFor('every event', (m) => new Set(m.map((x) => x.headers.ce_id)).size >= stored.length, 90_000);
      const report = checkDelivery(stored, reader.messages, w.prefix);
      console.log(`${label}: ${report.unique} events, ${report.received} messages, ${report.duplicates} duplicates`);
      expect({ ...report, missing: report.missing.length }).toMatchObject({
        unique: stored.length,
        missing: 0,
        splitKeys: [],
        partitionsOutOfLine: [],
        keysOutOfOrder: [],
      });
      return report;
    } finally {
      await reader.stop();
    }
  }

  const health = async (url: string) => {
    const r = await fetch(url).catch(() => undefined);
    return r
      ? {
          http: r.status,
          body: (await r.json()) as { status: string; components: { kafka_relay: { degraded: boolean; details: { state: string; published: number } } } },
        }
      : undefined;
  };

  it('SIGKILLed 5 times while 50,000 events flow: a consumer from the beginning sees every event, no gap, per-key order', async () => {
    const w = await world();
    worlds.push(w);
    const TOTAL = 50_000;
    const events = flow(w.store, 'kills', TOTAL, 500, 60);
    let kills = 0;
    while (kills < 5) {
      const relay = await startRelay(w);
      const before = (await w.status()).eventsPublished;
      // Kill mid-stream: once this process has moved the checkpoint, at a random moment of its next batches.
      await until('the relay to publish', async () => (await w.status()).eventsPublished > before, 60_000);
      await new Promise((r) => setTimeout(r, randomInt(0, 400)));
      relay.child.kill('SIGKILL');
      expect(await relay.exited).toBe('SIGKILL');
      kills += 1;
    }
    await events.done;
    const last = await startRelay(w);
    await until('the relay to catch up', async () => (await w.status()).lagEvents === 0, 90_000);
    last.child.kill('SIGTERM');
    expect(await last.exited).toBe(0);

    const report = await consumeAndCheck(w, `after ${kills} SIGKILLs`);
    expect(report.expected).toBe(TOTAL);
  });

  it('broker stopped for 30 s mid-stream: /health says degraded meanwhile, nothing is lost, the relay catches up', async () => {
    const w = await world();
    worlds.push(w);
    const relay = await startRelay(w);
    const events = flow(w.store, 'outage', 12_000, 50, 100);
    await until('the relay to publish', async () => ((await health(relay.healthUrl))?.body.components.kafka_relay.details.published ?? 0) > 500);

    await broker.stop();
    const outageStarted = Date.now();
    const seen: { http: number; status: string; degraded: boolean }[] = [];
    const atOutage = (await w.status()).eventsPublished;
    while (Date.now() - outageStarted < 30_000) {
      const h = await health(relay.healthUrl);
      if (h) seen.push({ http: h.http, status: h.body.status, degraded: h.body.components.kafka_relay.degraded });
      await new Promise((r) => setTimeout(r, 500));
    }
    const duringOutage = (await w.status()).eventsPublished;
    await broker.start();

    // Degraded (still 200: the relay is not on a serving path) once kafkajs gave up its first attempt, and after.
    const firstDegraded = seen.findIndex((s) => s.degraded);
    expect(firstDegraded).toBeGreaterThanOrEqual(0);
    expect(firstDegraded).toBeLessThan(20); // within ~10 s of the stop
    expect(seen.slice(firstDegraded).every((s) => s.degraded && s.status === 'degraded' && s.http === 200)).toBe(true);
    // Nothing was checkpointed without an acknowledgement (at most the batch in flight at the stop).
    expect(duringOutage - atOutage).toBeLessThanOrEqual(500);

    await events.done;
    await until('the relay to catch up', async () => (await w.status()).lagEvents === 0, 90_000);
    await until('/health ready again', async () => (await health(relay.healthUrl))?.body.status === 'ready', 30_000);
    relay.child.kill('SIGTERM');
    expect(await relay.exited).toBe(0);

    await consumeAndCheck(w, `30 s outage (degraded after ${firstDegraded * 0.5} s)`);
  });
});
