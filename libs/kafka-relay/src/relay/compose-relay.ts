import type { EventStore } from '@dob/event-store';
import type { LeaseKeeper } from '@dob/leases';
import { createSqlReadModelStore, type SqlProjectionDefinition } from '@dob/projections';
import type { SqlDatabase } from '@dob/sql';
import type { KafkaRelaySettings } from '../config';
import { createKafkajsPublisher } from '../kafkajs/kafkajs-publisher';
import { KafkaRelay } from './kafka-relay';
import { relayCheckpointName } from './relay-checkpoint';

export interface RunningKafkaRelay {
  readonly relay: KafkaRelay;
  /** Stops the relay, then closes its producer. */
  stop(): Promise<void>;
}

/** What every root composes: the kafkajs publisher and the relay over the SQL checkpoint store. Starts following. */
export function startKafkaRelay(o: {
  readonly db: SqlDatabase;
  readonly eventStore: EventStore;
  readonly settings: KafkaRelaySettings;
  readonly log?: (line: string) => void;
  /** Several relays: they compete for the lease named like their checkpoint (the caller starts the keeper). */
  readonly leases?: LeaseKeeper;
}): RunningKafkaRelay {
  const publisher = createKafkajsPublisher({ brokers: o.settings.brokers, clientId: o.settings.clientId, log: o.log });
  const woken: { relay?: KafkaRelay } = {}; // the relay needs its lease claim, the claim's handlers wake the relay
  const lease = o.leases?.claim(relayCheckpointName(o.settings.topicPrefix), {
    onAcquired: () => woken.relay?.leaseChanged(),
    onLost: () => woken.relay?.leaseChanged(),
  });
  const relay = new KafkaRelay({
    events: o.eventStore,
    checkpoints: createSqlReadModelStore<SqlProjectionDefinition>(o.db),
    publisher,
    topicPrefix: o.settings.topicPrefix,
    partitions: o.settings.partitions,
    replicationFactor: o.settings.replicationFactor,
    batchSize: o.settings.batchSize,
    pollIntervalMs: o.settings.pollIntervalMs,
    log: o.log,
    ...(lease ? { lease, leaseHeartbeatMs: o.leases?.timing.heartbeatMs } : {}),
  });
  woken.relay = relay;
  relay.start();
  return {
    relay,
    async stop() {
      await relay.stop();
      await publisher.close();
    },
  };
}
