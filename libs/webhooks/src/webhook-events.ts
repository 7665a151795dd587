/** The webhook event names (docs/agent-api.md#webhooks); `test` is sent only by the test endpoint. */
export const WEBHOOK_EVENTS = [
  'distribution_created',
  'claim_available',
  'shares_transferred',
  'pool_created',
  'marketplace_listing_created',
  'marketplace_sale_completed',
  'crowdfunding_finalized',
  'crowdfunding_failed',
] as const;

export type WebhookEventName = (typeof WEBHOOK_EVENTS)[number];

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
