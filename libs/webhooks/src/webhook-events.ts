import { WEBHOOK_EVENTS, type WebhookEventName } from './fanout/payloads';

// The names are declared with their payloads (fanout/payloads.ts WEBHOOK_PAYLOADS): a new webhook event is one place.
export { WEBHOOK_EVENTS, type WebhookEventName };

export function isWebhookEventName(value: unknown): value is WebhookEventName {
  return typeof value === 'string' && (WEBHOOK_EVENTS as readonly string[]).includes(value);
}

/** Spec Limits: 5 webhooks per API key, secrets of at least 16 characters. */
export const MAX_WEBHOOKS_PER_KEY = 5;
/**
 * Webhooks of one wallet over all its keys, those of revoked keys included until deleted: without it, create a key
 * → 5 webhooks → revoke, in a loop, would multiply every chain event into unbounded deliveries (issue 29).
 */
export const MAX_WEBHOOKS_PER_WALLET = 20;
export const MIN_SECRET_LENGTH = 16;
