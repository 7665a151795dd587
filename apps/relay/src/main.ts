import { relayDependencies, startRelay } from '@dob/compositions';
import { kafkaRelaySettings } from '@dob/kafka-relay';
import { lineLogger, startAppObservability } from '@dob/observability';
import { ConfigError, HealthRegistry, appLeases, openAppStorage, runApp, startHealthServer, storageDependencies, watchDependencies } from '@dob/runtime';

/**
 * The Kafka relay alone: follows the event store from its checkpoint and publishes every analyst-facing domain event
 * to Kafka (docs/kafka.md). Run it against PostgreSQL (DATABASE_URL) beside the other apps; `npm start` embeds it
 * when KAFKA_BROKERS is set. GET http://127.0.0.1:$RELAY_HEALTH_PORT/health reports it (degraded while the broker
 * is away). KAFKA_BROKERS is required by the relay's configuration (appRequirements), so runApp refuses to start
 * without it.
 */
runApp('relay', async (config) => {
  const settings = kafkaRelaySettings(config);
  if (!settings) throw new ConfigError('KAFKA_BROKERS is not set: the relay needs the brokers to publish to (host:port,…)');
  const obs = await startAppObservability({ app: 'relay', level: config.LOG_LEVEL, metricsPort: config.METRICS_PORT });
  const storage = await openAppStorage(config);
  // Several relays on one PostgreSQL: one publishes (the lease holder), the others stand by.
  const leases = appLeases('relay', storage.db, config, lineLogger(obs.log, 'leases'), obs.metrics.countLeaseChange);
  const health = new HealthRegistry();
  const running = startRelay({ storage, health, metrics: obs.metrics, log: obs.log }, { settings, leases });
  await leases?.start();
  watchDependencies(health, obs.dependencies, { ...storageDependencies(storage), ...relayDependencies(running.relay) });
  const server = await startHealthServer(health, settings.healthPort);
  obs.log.info(`relaying to ${settings.brokers.join(',')} (${running.relay.topicNames.join(', ')}); health at ${server.url}`);
  return async () => {
    await leases?.stop();
    await running.stop();
    await server.close();
    await obs.close();
    await storage.close();
  };
});
