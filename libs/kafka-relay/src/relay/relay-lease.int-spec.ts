import { walletEvents } from '@dob/auth';
import { createChainEventCatalog } from '@dob/domain';
import { createSqlEventStore, type EventStore } from '@dob/event-store';
import { DEFAULT_LEASE_TIMING, LeaseKeeper, createSqlLeaseStore, leaseOwner } from '@dob/leases';
import { createSqlReadModelStore } from '@dob/projections';
import type { SqlDatabase } from '@dob/sql';
import { createTestPostgresDatabase } from '../../../sql/src/testing/test-databases';
import { RELAYED_EVENT_TYPES } from '../analyst-topics';
import type { AnalystMessage } from '../cloud-event';
import type { EventPublisher } from '../event-publisher.port';
import { flowBatch } from '../testing/event-flow';
import { KafkaRelay } from './kafka-relay';
import { relayCheckpointName } from './relay-checkpoint';

/** A broker stand-in that records what it acknowledged (the real broker: kafkajs-publisher.int-spec). */
class RecordingPublisher implements EventPublisher {
  readonly acknowledged: AnalystMessage[] = [];
  async ensureTopics(): Promise<void> {}
  async publish(messages: readonly AnalystMessage[]): Promise<void> {
    this.acknowledged.push(...messages);
  }
  async close(): Promise<void> {}
}

const until = async (what: string, probe: () => boolean | Promise<boolean>, timeoutMs = 20_000) => {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
};

/** Two relays on one PostgreSQL: the lease holder publishes, the other stands by and takes over when it goes. */
describe('kafka relays under a lease (PostgreSQL)', () => {
  let db: SqlDatabase;
  let store: EventStore;
  beforeEach(async () => {
    db = await createTestPostgresDatabase();
    store = await createSqlEventStore(db, { catalog: createChainEventCatalog([...walletEvents]), pollIntervalMs: 20 });
  });
  afterEach(async () => {
    await store.close();
    await db.close();
  });

  it('one publishes at a time; after the owner stops, the standby publishes the rest from the checkpoint', async () => {
    const start = async (name: string) => {
      const keeper = new LeaseKeeper(createSqlLeaseStore(db), leaseOwner(name), { durationMs: 600, heartbeatMs: 100 });
      const publisher = new RecordingPublisher();
      const woken: { relay?: KafkaRelay } = {};
      const lease = keeper.claim(relayCheckpointName(), { onAcquired: () => woken.relay?.leaseChanged(), onLost: () => woken.relay?.leaseChanged() });
      const relay = new KafkaRelay({ events: store, checkpoints: createSqlReadModelStore(db), publisher, batchSize: 25, pollIntervalMs: 20, lease });
      woken.relay = relay;
      relay.start();
      await keeper.start();
      return { keeper, publisher, relay };
    };
    const append = async (from: number, to: number) => {
      for (const { streamId, events } of flowBatch('lease', from, to, 4)) await store.appendToStream(streamId, events);
    };
    const first = await start('first');
    const second = await start('second');
    await append(0, 200);
    // Caught up at the empty head stays true until the next poll sees the appends (CI 2026-11-28 read 0 here):
    // wait for what the owner must publish, then for it to be caught up, and count exactly.
    await until('the owner to publish the first 200', () => first.publisher.acknowledged.length >= 200);
    await first.relay.waitUntilCaughtUp();
    expect(first.publisher.acknowledged.length).toBe(200);
    expect(second.publisher.acknowledged).toEqual([]);
    expect(second.relay.health()).toMatchObject({ standby: true, details: { state: 'standby' } }); // /health: `standby`

    await first.keeper.stop(); // releases: the standby's next heartbeat takes the lease
    await first.relay.stop();
    await append(200, 300);
    await until('the standby to publish the rest', () => second.publisher.acknowledged.length >= 100);
    await second.relay.waitUntilCaughtUp();
    const relayed = (await store.readAll({ maxCount: 10_000, types: RELAYED_EVENT_TYPES })).events.map((e) => e.id);
    expect([...first.publisher.acknowledged, ...second.publisher.acknowledged].map((m) => m.eventId)).toEqual(relayed);
    const [lease] = await createSqlLeaseStore(db).list();
    expect(lease).toMatchObject({ name: 'kafka_relay', token: 2, owner: { app: 'second' } });
    await second.keeper.stop();
    await second.relay.stop();
  });

  it('a relay whose lease was taken over publishes the page in hand once or twice before its keeper notices, not once per retry', async () => {
    const leases = createSqlLeaseStore(db);
    // Default timing: the keeper learns of a takeover only at its next heartbeat, up to 1 s later.
    const side = (name: string) => {
      const keeper = new LeaseKeeper(leases, leaseOwner(name), DEFAULT_LEASE_TIMING);
      const publisher = new RecordingPublisher();
      const woken: { relay?: KafkaRelay } = {};
      const lease = keeper.claim(relayCheckpointName(), { onAcquired: () => woken.relay?.leaseChanged(), onLost: () => woken.relay?.leaseChanged() });
      const relay = new KafkaRelay({
        events: store,
        checkpoints: createSqlReadModelStore(db),
        publisher,
        batchSize: 25,
        pollIntervalMs: 20,
        lease,
        leaseHeartbeatMs: keeper.timing.heartbeatMs,
      });
      woken.relay = relay;
      return { keeper, publisher, relay, lease };
    };
    const first = side('first');
    const second = side('second');
    try {
      first.relay.start();
      await first.keeper.start(); // holds token 1; its next heartbeat is about 1 s away
      await first.relay.waitUntilCaughtUp(); // at the empty head
      // Another process takes the lease over in the database (as after a pause of the first): token 2. The first's
      // keeper still counts the lease as its own until its next renewal is refused.
      await leases.release(first.lease.held()!);
      await second.keeper.start();
      expect(second.lease.held()?.token).toBe(2);
      expect(first.lease.held()?.token).toBe(1);

      for (const { streamId, events } of flowBatch('zombie', 0, 30, 4)) await store.appendToStream(streamId, events);
      const [firstEvent] = (await store.readAll({ maxCount: 1, types: RELAYED_EVENT_TYPES })).events;
      const publishes = (p: RecordingPublisher) => p.acknowledged.filter((m) => m.eventId === firstEvent!.id).length;
      await until('the first to publish the page after the checkpoint', () => publishes(first.publisher) >= 1);
      await until("the first's keeper to see the lease gone", () => first.lease.held() === null, 5_000);
      expect(first.relay.health()).toMatchObject({ standby: true });
      const byFirst = publishes(first.publisher);

      second.relay.start();
      await until('the new holder to publish everything', () => second.publisher.acknowledged.length >= 30);
      await second.relay.waitUntilCaughtUp();
      // docs/kafka.md: the page it had in hand is published twice (once by the old holder, once by the new) when the
      // old keeper's renewal answers within a heartbeat; one page more per two heartbeats if the machine is slower.
      // Before the wait it was published once per round trip until the keeper noticed (108 times here).
      expect(byFirst).toBeLessThanOrEqual(2);
      expect(publishes(second.publisher)).toBe(1);
    } finally {
      for (const { keeper, relay } of [second, first]) {
        await keeper.stop();
        await relay.stop();
      }
    }
  });
});
