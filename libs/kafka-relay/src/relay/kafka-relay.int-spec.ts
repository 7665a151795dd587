import { walletEvents } from '@dob/auth';
import { createChainEventCatalog, derivedEventId, indexerStreamId } from '@dob/domain';
import { createSqlEventStore, type EventStore, type RecordedEvent } from '@dob/event-store';
import { createSqlReadModelStore, type SqlProjectionDefinition } from '@dob/projections';
import { type SqlDatabase } from '@dob/sql';
import { testDatabases } from '../../../sql/src/testing/test-databases';
import { RELAYED_EVENT_TYPES } from '../analyst-topics';
import type { AnalystMessage } from '../cloud-event';
import type { EventPublisher } from '../event-publisher.port';
import { flowBatch } from '../testing/event-flow';
import { SAMPLES } from '../testing/sample-events';
import { KafkaRelay, type KafkaRelayOptions } from './kafka-relay';

/** A broker stand-in that records what it acknowledged, and fails on demand (the real broker: kafka-relay.kafka.int-spec). */
class FakePublisher implements EventPublisher {
  acknowledged: AnalystMessage[] = [];
  attempts: string[][] = [];
  /** Produce requests fail (the broker went away after the topics existed). */
  failing = false;
  /** Nothing answers at all, not even topic creation (the broker is down at start). */
  down = false;
  topics: string[] = [];
  /** Slow acknowledgements, to see whether a second batch is ever sent before the first was acknowledged. */
  delayMs = 0;
  active = 0;
  maxActive = 0;
  async ensureTopics(topics: readonly { name: string }[]): Promise<void> {
    if (this.down) throw new Error('broker unreachable');
    this.topics = topics.map((t) => t.name);
  }
  async publish(messages: readonly AnalystMessage[]): Promise<void> {
    this.attempts.push(messages.map((m) => m.eventId));
    this.active += 1;
    this.maxActive = Math.max(this.maxActive, this.active);
    try {
      if (this.delayMs) await new Promise((r) => setTimeout(r, this.delayMs));
      if (this.failing || this.down) throw new Error('broker unreachable');
      this.acknowledged.push(...messages);
    } finally {
      this.active -= 1;
    }
  }
  async close(): Promise<void> {}
}

const cursor = (n: number) => ({
  id: derivedEventId('cursor', n),
  type: 'IngestionCursorAdvanced',
  version: 1,
  data: {
    network_id: 9,
    from_ledger: n,
    to_ledger: n,
    next_ledger: n + 1,
    latest_ledger: n,
    latest_ledger_closed_at: null,
    chain_events: 0,
    domain_events: 0,
    undecoded: 0,
  },
});

const until = async (what: string, probe: () => boolean | Promise<boolean>, timeoutMs = 20_000) => {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
};

describe.each(testDatabases())('kafka relay on $name (fake broker)', (factory) => {
  let db: SqlDatabase;
  let store: EventStore;
  const relays: KafkaRelay[] = [];

  beforeEach(async () => {
    db = await factory.create();
    store = await createSqlEventStore(db, { catalog: createChainEventCatalog([...walletEvents]), pollIntervalMs: 20 });
  });
  afterEach(async () => {
    await Promise.all(relays.splice(0).map((r) => r.stop()));
    await store.close();
    await db.close();
  });

  const relay = (publisher: EventPublisher, o: Partial<KafkaRelayOptions> = {}) => {
    const r = new KafkaRelay({
      events: store,
      checkpoints: createSqlReadModelStore(db),
      publisher,
      batchSize: 7,
      pollIntervalMs: 20,
      retry: { baseMs: 5, capMs: 20 },
      ...o,
    });
    relays.push(r);
    r.start();
    return r;
  };
  const relayedInStore = async (): Promise<RecordedEvent[]> =>
    (await store.readAll({ maxCount: 100_000, types: RELAYED_EVENT_TYPES })).events.filter((e) => !e.streamId.startsWith('indexer'));
  const appendSamples = async () => {
    for (const [i, s] of SAMPLES.entries()) {
      await store.appendToStream(s.streamId, [{ id: derivedEventId('sample', i), type: s.type, version: 1, data: s.data }]);
      if (i % 10 === 0) await store.appendToStream(indexerStreamId(9), [cursor(i)]);
    }
  };

  it('publishes every analyst event in $all order, internal events never, and parks the checkpoint at the head', async () => {
    await appendSamples();
    const broker = new FakePublisher();
    broker.delayMs = 15;
    const r = relay(broker);
    await r.waitUntilCaughtUp();
    const expected = await relayedInStore();
    expect(broker.acknowledged.map((m) => m.eventId)).toEqual(expected.map((e) => e.id));
    expect(broker.maxActive).toBe(1); // the next page is read meanwhile, but sent only after the ack
    expect(broker.acknowledged.some((m) => m.value.includes('IngestionCursorAdvanced'))).toBe(false);
    expect(broker.topics).toEqual(['dob.pools.v1', 'dob.marketplace.v1', 'dob.crowdfunding.v1', 'dob.distributions.v1']);
    const status = await r.status();
    expect(status).toMatchObject({ checkpoint: 'kafka_relay', status: 'live', eventsPublished: expected.length, lagEvents: 0, lagSeconds: 0 });
    expect(status.position).toBe(status.head);
    expect(r.health()).toMatchObject({ status: 'up', ready: true, degraded: false, details: { state: 'live', published: expected.length } });

    // A new event while live: the relay stays 'live' while it publishes it (no flapping to catching_up per page).
    broker.delayMs = 300;
    const [first] = SAMPLES;
    await store.appendToStream(first!.streamId, [{ id: derivedEventId('sample', 'late'), type: first!.type, version: 1, data: first!.data }]);
    await until('the late event in flight', () => broker.active > 0);
    expect(r.health().details).toMatchObject({ state: 'live' });
    await until('the late event published', () => broker.acknowledged.some((m) => m.eventId === derivedEventId('sample', 'late')));
    expect(r.health().details).toMatchObject({ state: 'live' });
  });

  it('a failing broker delays, never skips: the page is retried whole, degraded meanwhile, checkpoint only after the ack', async () => {
    await appendSamples();
    const broker = new FakePublisher();
    broker.failing = true;
    const r = relay(broker);
    await until('the relay to report degraded', () => r.health().degraded);
    await until('a few failed attempts', () => broker.attempts.length >= 3);
    expect(r.health().details).toMatchObject({ state: 'degraded', last_error: 'Error: broker unreachable', failing_since: expect.any(String) });
    expect((await r.status()).eventsPublished).toBe(0); // nothing acknowledged, nothing checkpointed
    expect(r.brokerAway()).toBe('Error: broker unreachable'); // the relay's `kafka` dependency: away

    broker.failing = false;
    await r.waitUntilCaughtUp();
    expect(r.brokerAway()).toBeNull();
    const expected = (await relayedInStore()).map((e) => e.id);
    expect(broker.acknowledged.map((m) => m.eventId)).toEqual(expected);
    // Every attempt was a whole page from the checkpoint: the first page over and over, then the rest in order.
    const failedFirst = broker.attempts.filter((a) => a[0] === expected[0]);
    expect(failedFirst.length).toBeGreaterThanOrEqual(3);
    for (const a of failedFirst) expect(a).toEqual(expected.slice(0, a.length));
    expect(r.health()).toMatchObject({ degraded: false, details: { state: 'live', last_error: 'Error: broker unreachable' } });
  });

  it('a broker down at start: topic creation is retried with backoff (degraded), then everything goes out', async () => {
    await appendSamples();
    const broker = new FakePublisher();
    broker.down = true;
    const r = relay(broker);
    await until('the relay to report degraded', () => r.health().degraded);
    expect(r.health().details.state).toBe('degraded');
    expect(broker.attempts).toEqual([]);
    expect(r.brokerAway()).toBe('Error: broker unreachable');
    broker.down = false;
    await r.waitUntilCaughtUp();
    expect(r.brokerAway()).toBeNull();
    expect(broker.topics).toHaveLength(4);
    expect(broker.acknowledged.map((m) => m.eventId)).toEqual((await relayedInStore()).map((e) => e.id));
  });

  it('stopped before the broker acknowledged, the next relay publishes that page again: at least once, nothing lost', async () => {
    await appendSamples();
    const down = new FakePublisher();
    down.failing = true;
    const first = relay(down);
    await until('failed attempts', () => down.attempts.length >= 2);
    await first.stop();
    expect((await first.status()).eventsPublished).toBe(0);

    const up = new FakePublisher();
    await relay(up).waitUntilCaughtUp();
    expect(up.acknowledged.map((m) => m.eventId)).toEqual((await relayedInStore()).map((e) => e.id));
  });

  it('follows live appends (woken by the store), and two relays on one checkpoint deliver everything in order', async () => {
    const log: AnalystMessage[] = [];
    const shared = (): EventPublisher => ({ ensureTopics: async () => undefined, publish: async (m) => void log.push(...m), close: async () => undefined });
    relay(shared());
    relay(shared());
    for (let i = 0; i < 300; i += 30) await store.appendMany(flowBatch('two', i, i + 30, 5));
    // The store's reads stop below any transaction still in flight (gap safety), and the racing relays keep
    // checkpoint transactions open: one read right after the appends once saw 270 of 300. So the expected list is
    // re-read with every probe, until it has all 300 and every one was published.
    let expected: string[] = [];
    const allPublished = async () => {
      expected = (await relayedInStore()).map((e) => e.id);
      const seen = new Set(log.map((m) => m.eventId));
      return expected.length === 300 && seen.size === 300 && expected.every((id) => seen.has(id));
    };
    // Two relays race every page of 7 (each lost race restarts the loser's subscription): slow under a loaded CI
    // machine, so a minute, and a timeout says where each relay and the checkpoint stood.
    await until('every event published', allPublished, 60_000).catch(async (e: Error) => {
      const seen = new Set(log.map((m) => m.eventId));
      const states = relays.map((r) => r.health().details);
      throw new Error(
        `${e.message}: ${seen.size}/${expected.length} published; relays ${JSON.stringify(states)}; checkpoint ${JSON.stringify(await relays[0]!.status())}`,
      );
    });
    const firstSeen = [...new Set(log.map((m) => m.eventId))];
    // Per key, first occurrences follow the store's order (a duplicate from the slower relay is only a repeat).
    const keyOf = new Map(log.map((m) => [m.eventId, `${m.topic}/${m.key}`]));
    for (const key of new Set(keyOf.values())) {
      expect(firstSeen.filter((id) => keyOf.get(id) === key)).toEqual(expected.filter((id) => keyOf.get(id) === key));
    }
  });

  it('a relay whose last page lost the checkpoint race to another relay re-reads it and is caught up (no new event needed)', async () => {
    await store.appendMany(flowBatch('race', 0, 10, 2));
    let open!: () => void;
    const gate = new Promise<void>((r) => (open = r));
    const slow = new FakePublisher();
    const held: EventPublisher = {
      ensureTopics: (t) => slow.ensureTopics(t),
      publish: async (m) => (await gate, slow.publish(m)),
      close: async () => undefined,
    };
    const a = relay(held, { batchSize: 50 });
    await until('relay A to hold its only page', () => slow.attempts.length === 0 && a.health().details.state !== 'starting');
    const b = relay(new FakePublisher(), { batchSize: 50 });
    await b.waitUntilCaughtUp(); // B published the page and moved the checkpoint first
    open(); // A's acknowledgement comes late: its checkpoint move conflicts, at the head, with nothing left to read
    await a.waitUntilCaughtUp(10_000);
    expect(slow.acknowledged).toHaveLength(10);
    expect((await a.status()).lagEvents).toBe(0);
  });

  it('a failed write of the live status is made again the next time the relay reaches the head', async () => {
    await appendSamples();
    // The checkpoint store whose next setStatus fails (PostgreSQL away for a moment as the relay first caught up).
    const real = createSqlReadModelStore<SqlProjectionDefinition>(db);
    let failures = 0;
    let failNext = true;
    const checkpoints = new Proxy(real, {
      get(target, prop) {
        if (prop === 'setStatus' && failNext)
          return async () => {
            failNext = false;
            failures += 1;
            throw new Error('connection lost');
          };
        const value: unknown = Reflect.get(target, prop, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const broker = new FakePublisher();
    const r = relay(broker, { checkpoints });
    await r.waitUntilCaughtUp();
    await until('the live status write to fail', () => failures === 1);
    expect((await r.status()).status).toBe('catching_up');

    // The next time it reaches the head (after a new event), the status is written again.
    const [first] = SAMPLES;
    await store.appendToStream(first!.streamId, [{ id: derivedEventId('sample', 'after-failure'), type: first!.type, version: 1, data: first!.data }]);
    await until('the new event published', () => broker.acknowledged.some((m) => m.eventId === derivedEventId('sample', 'after-failure')));
    await r.waitUntilCaughtUp();
    await until('the checkpoint marked live', async () => (await r.status()).status === 'live', 3_000);
  });

  it('status: lag in events and in seconds before the relay runs, none after', async () => {
    await appendSamples();
    const expected = await relayedInStore();
    const idle = new KafkaRelay({ events: store, checkpoints: createSqlReadModelStore(db), publisher: new FakePublisher() });
    const later = new Date(expected[0]!.recordedAt.getTime() + 90_000);
    const before = await idle.status(later);
    expect(before).toMatchObject({ exists: false, status: null, position: '-1:-1', eventsPublished: 0, lagEvents: expected.length, lagSeconds: 90 });

    const r = relay(new FakePublisher());
    await r.waitUntilCaughtUp();
    expect(await r.status()).toMatchObject({ exists: true, lagEvents: 0, lagSeconds: 0, oldestUnpublishedAt: null });
  });
});
