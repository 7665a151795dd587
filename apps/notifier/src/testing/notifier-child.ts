/**
 * Child process of notifier-crash.e2e-spec.ts: the notifier on one PostgreSQL schema (DATABASE_URL + SCHEMA), with
 * the webhook settings from the environment (WEBHOOK_*). The test SIGKILLs it mid-burst.
 */
import { createChainEventCatalog } from '@dob/domain';
import { createSqlEventStore } from '@dob/event-store';
import { createPostgresDatabase } from '@dob/sql';
import { loadAppConfig } from '@dob/runtime';
import { createNotifier, webhookSettings } from '@dob/webhooks';

async function main(): Promise<void> {
  const db = await createPostgresDatabase({ connectionString: process.env.DATABASE_URL!, schema: process.env.SCHEMA! });
  const eventStore = await createSqlEventStore(db, { catalog: createChainEventCatalog(), pollIntervalMs: 20 });
  const s = webhookSettings(loadAppConfig('notifier'), process.env.DATA_DIR ?? '.');
  const notifier = await createNotifier({
    db,
    eventStore,
    secretKey: s.secretKey,
    allowList: s.allowList,
    ca: s.ca,
    retrySchedule: s.retrySchedule,
    concurrency: s.concurrency,
    sendTimeoutMs: s.sendTimeoutMs,
    leaseMs: s.leaseMs,
    pollIntervalMs: s.pollIntervalMs,
  });
  await notifier.start();
  process.stdout.write('started\n');
}

main().catch((e) => {
  console.error(e);
  process.exit(2);
});
