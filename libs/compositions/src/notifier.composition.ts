import type { LeaseKeeper } from '@dob/leases';
import { lineLogger, recordDelivery } from '@dob/observability';
import { createNotifier, webhookSettings, type KnownToken, type Notifier, type WebhookConfig } from '@dob/webhooks';
import type { AppContext, Started } from './app-context';

export interface NotifierOptions {
  /** Payment tokens whose symbol and decimals are configured; others are learned from the chain. */
  readonly tokens: readonly KnownToken[];
  /** The WEBHOOK_* settings (secret key, SSRF allow-list, CA, retry schedule). */
  readonly webhook: WebhookConfig;
  /** Several notifiers: the fan-out runs in the one holding its lease (the caller starts it); every one delivers. */
  readonly leases?: LeaseKeeper;
}

/**
 * The notifier: the webhook fan-out and the delivery workers, on /health as `notifier` and in the metrics.
 * Composed by `npm run start:notifier` and `npm start` (whose API shares its webhook service).
 */
export async function startNotifier(c: AppContext, o: NotifierOptions): Promise<Started & { readonly notifier: Notifier }> {
  const notifier = await createNotifier({
    db: c.storage.db,
    eventStore: c.storage.eventStore,
    tokens: o.tokens,
    ...webhookSettings(o.webhook, c.storage.dataDir),
    log: lineLogger(c.log, 'notifier'),
    onDeliveryAttempt: (result) => recordDelivery(c.metrics, result),
    ...(o.leases ? { leases: o.leases } : {}),
  });
  await notifier.start();
  c.metrics.trackProjections(() => notifier.projections());
  c.metrics.trackWebhooks(notifier.components);
  c.health.register('notifier', () => notifier.health());
  return { notifier, stop: () => notifier.stop() };
}
