import type { WebhookOwner } from '../store/webhook-store';

/** A caller for tests that name only a key: each key id its own wallet, so per-wallet limits never couple tests. */
export const testCaller = (keyId: string): WebhookOwner => ({ keyId, wallet: `wallet-of-${keyId}` });
