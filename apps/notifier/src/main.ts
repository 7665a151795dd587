import { systemEventCatalog } from '../../api/src/system-event-catalog';
import { instrumentEventStore, lineLogger, recordDelivery, startAppObservability } from '@dob/observability';
import { ConfigError, loadAppConfig, openStorage } from '@dob/runtime';
import { createNotifier, loadWebhookSettings } from '@dob/webhooks';

/**
 * The notifier alone: fans domain events out to subscribed webhooks (durable queue) and delivers them, signed, with
 * retries. Run it against PostgreSQL (DATABASE_URL) beside the api, indexer and projector; `npm start` embeds it.
 * Several instances may run: the fan-out checkpoint admits one writer per batch, SKIP LOCKED shares the queue.
 */
async function main(): Promise<void> {
  const config = loadAppConfig();
  const obs = await startAppObservability({ app: 'notifier', level: config.LOG_LEVEL, metricsPort: config.METRICS_PORT });
  const storage = await openStorage({ dataDir: config.DATA_DIR, databaseUrl: config.DATABASE_URL, eventStoreUrl: config.EVENTSTORE_URL, catalog: systemEventCatalog() });
  const settings = loadWebhookSettings(process.env, storage.dataDir);
  const notifier = await createNotifier({
    db: storage.db,
    eventStore: instrumentEventStore(storage.eventStore, obs.metrics),
    secretKey: settings.secretKey,
    allowList: settings.allowList,
    ca: settings.ca,
    retrySchedule: settings.retrySchedule,
    concurrency: settings.concurrency,
    leaseMs: settings.leaseMs,
    pollIntervalMs: settings.pollIntervalMs,
    log: lineLogger(obs.log, 'notifier'),
    onDeliveryAttempt: (result) => recordDelivery(obs.metrics, result),
  });
  await notifier.start();
  obs.metrics.trackProjections(() => notifier.projections());
  obs.metrics.sample(async () => obs.metrics.webhookQueueDepth.set((await notifier.components.queue.counts()).pending));
  obs.log.info('fan-out and delivery worker running');
  const shutdown = async () => {
    await notifier.stop();
    await obs.close();
    await storage.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void shutdown());
  process.once('SIGTERM', () => void shutdown());
}

main().catch((e) => {
  console.error(e instanceof ConfigError ? e.message : e);
  process.exit(1);
});
