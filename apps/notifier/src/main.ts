import { Logger } from '@nestjs/common';
import { systemEventCatalog } from '../../api/src/system-event-catalog';
import { ConfigError, loadAppConfig, openStorage } from '@dob/runtime';
import { createNotifier, loadWebhookSettings } from '@dob/webhooks';

/**
 * The notifier alone: fans domain events out to subscribed webhooks (durable queue) and delivers them, signed, with
 * retries. Run it against PostgreSQL (DATABASE_URL) beside the api, indexer and projector; `npm start` embeds it.
 * Several instances may run: the fan-out checkpoint admits one writer per batch, SKIP LOCKED shares the queue.
 */
async function main(): Promise<void> {
  const log = new Logger('notifier');
  const config = loadAppConfig();
  const storage = await openStorage({ dataDir: config.DATA_DIR, databaseUrl: config.DATABASE_URL, eventStoreUrl: config.EVENTSTORE_URL, catalog: systemEventCatalog() });
  const settings = loadWebhookSettings(process.env, storage.dataDir);
  const notifier = await createNotifier({
    db: storage.db,
    eventStore: storage.eventStore,
    secretKey: settings.secretKey,
    allowList: settings.allowList,
    ca: settings.ca,
    retrySchedule: settings.retrySchedule,
    concurrency: settings.concurrency,
    leaseMs: settings.leaseMs,
    pollIntervalMs: settings.pollIntervalMs,
    log: (line) => log.log(line),
  });
  await notifier.start();
  log.log('fan-out and delivery worker running');
  const shutdown = async () => {
    await notifier.stop();
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
