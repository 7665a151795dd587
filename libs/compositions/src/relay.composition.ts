import { startKafkaRelay, type KafkaRelay, type KafkaRelaySettings } from '@dob/kafka-relay';
import type { LeaseKeeper } from '@dob/leases';
import { lineLogger } from '@dob/observability';
import type { Dependency } from '@dob/runtime';
import type { AppContext, Started } from './app-context';

export interface RelayOptions {
  readonly settings: KafkaRelaySettings;
  /** Several relays on one PostgreSQL: one publishes (the lease holder, the caller starts it), the others stand by. */
  readonly leases?: LeaseKeeper;
}

/**
 * The Kafka relay: analyst-facing domain events published to Kafka from its checkpoint, on /health as `kafka_relay`
 * (degraded while the broker is away) and its lag in the metrics. Composed by `npm run start:relay` and, when
 * KAFKA_BROKERS is set, `npm start`.
 */
export function startRelay(c: AppContext, o: RelayOptions): Started & { readonly relay: KafkaRelay } {
  const running = startKafkaRelay({
    db: c.storage.db,
    eventStore: c.storage.eventStore,
    settings: o.settings,
    log: lineLogger(c.log, 'kafka_relay'),
    ...(o.leases ? { leases: o.leases } : {}),
  });
  c.metrics.trackRelayLag('kafka', async () => (await running.relay.status()).lagEvents);
  c.health.register('kafka_relay', async () => running.relay.health());
  return { relay: running.relay, stop: () => running.stop() };
}

/**
 * What the relay needs besides its storage, for watchDependencies: Kafka, optional — while the brokers are away the
 * relay keeps its batch in hand and retries (the events wait in the store), so it stays ready; the watch logs the
 * outage at error, its end at warn, and counts it in /metrics under `kafka`. `npm run start:relay` and `npm start`
 * with KAFKA_BROKERS both watch it.
 */
export function relayDependencies(relay: KafkaRelay): Record<string, Dependency> {
  return {
    kafka: {
      optional: true,
      meanwhile: 'events wait in the event store and are published once the brokers take them',
      probe: async () => {
        const away = relay.brokerAway();
        if (away) throw new Error(away);
      },
    },
  };
}
