import { createHash, randomBytes } from 'node:crypto';

export function newWebhookId(): string {
  return `wh_${randomBytes(12).toString('hex')}`;
}

/**
 * Delivery ids are derived from (domain event id, webhook id): the same event to the same webhook always has the
 * same `dlv_` id — across retries, restarts and fan-out replays — so receivers can dedupe on it (docs/decisions.md#d2).
 */
export function deliveryId(eventId: string, webhookId: string): string {
  return `dlv_${createHash('sha256').update(`${eventId}/${webhookId}`).digest('hex').slice(0, 32)}`;
}

/** Test sends are not events: a fresh id each time. */
export function testDeliveryId(): string {
  return `dlv_test_${randomBytes(12).toString('hex')}`;
}
