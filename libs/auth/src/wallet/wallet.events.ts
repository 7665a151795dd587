import { z } from 'zod';
import { defineEvent, type EventDefinition } from '@dob/domain';

/**
 * Events of the wallet aggregate (stream `wallet-<G…>`): the service-owned state behind API keys. Keys appear
 * only as SHA-256 hashes plus the prefix and last four characters needed for masking.
 */
const wallet = z.string().regex(/^G[A-Z2-7]{55}$/, 'Stellar account id');
const keyId = z.string().regex(/^ak_[0-9A-Z]{26}$/);
const keyHash = z.string().regex(/^[0-9a-f]{64}$/);
const keyPrefix = z.string().regex(/^svc_ak_[0-9A-Za-z]{4}$/);
const keyLast4 = z.string().regex(/^[0-9A-Za-z]{4}$/);
const scopes = z
  .array(z.enum(['read', 'trade']))
  .min(1)
  .max(2);
const rpm = z.number().int().positive();
const time = z.string().datetime({ offset: true });

export const ApiKeyCreated = defineEvent(
  'ApiKeyCreated',
  z
    .object({
      wallet,
      key_id: keyId,
      key_hash: keyHash,
      key_prefix: keyPrefix,
      key_last4: keyLast4,
      label: z.string().min(1).max(64),
      scopes,
      rate_limit_rpm: rpm,
      /** `register` (challenge signature) or `key_management` (JWT). */
      origin: z.enum(['register', 'key_management']),
      created_at: time,
    })
    .strict(),
);

export const ApiKeyRevoked = defineEvent('ApiKeyRevoked', z.object({ wallet, key_id: keyId, revoked_at: time }).strict());

/** Same key_id, label and scopes; the previous hash stops matching at once. */
export const ApiKeyRotated = defineEvent(
  'ApiKeyRotated',
  z.object({ wallet, key_id: keyId, key_hash: keyHash, key_prefix: keyPrefix, key_last4: keyLast4, rotated_at: time }).strict(),
);

/** Operator decision: the key's tier (60 default, 300 enhanced, 1000+ enterprise). */
export const ApiKeyRateLimitSet = defineEvent('ApiKeyRateLimitSet', z.object({ wallet, key_id: keyId, rate_limit_rpm: rpm, set_at: time }).strict());

export type ApiKeyCreatedData = z.infer<typeof ApiKeyCreated.schema>;
export type ApiKeyRevokedData = z.infer<typeof ApiKeyRevoked.schema>;
export type ApiKeyRotatedData = z.infer<typeof ApiKeyRotated.schema>;
export type ApiKeyRateLimitSetData = z.infer<typeof ApiKeyRateLimitSet.schema>;

export type WalletEvent =
  | { type: 'ApiKeyCreated'; data: ApiKeyCreatedData }
  | { type: 'ApiKeyRevoked'; data: ApiKeyRevokedData }
  | { type: 'ApiKeyRotated'; data: ApiKeyRotatedData }
  | { type: 'ApiKeyRateLimitSet'; data: ApiKeyRateLimitSetData };

/** Register these in the event store's catalog (e.g. `createChainEventCatalog(walletEvents)`). */
export const walletEvents: EventDefinition[] = [ApiKeyCreated, ApiKeyRevoked, ApiKeyRotated, ApiKeyRateLimitSet] as EventDefinition[];

export const walletStreamId = (walletId: string): string => `wallet-${walletId}`;
