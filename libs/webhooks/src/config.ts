import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import type { SsrfAllowList } from './ssrf/address-policy';
import { DEFAULT_RETRY_SCHEDULE_MS } from './delivery/retry-schedule';
import { loadOrCreateKeyFile, parseSecretKey } from './secrets/secret-box';

const list = z
  .string()
  .optional()
  .transform((v) => (v ?? '').split(',').map((s) => s.trim()).filter(Boolean));

/**
 * Webhook settings (all optional; the embedded default needs none):
 * - WEBHOOK_SECRET_KEY: 32-byte AES key (hex/base64); unset = `<DATA_DIR>/webhook-secret.key`, created 0600.
 * - WEBHOOK_SSRF_ALLOW: comma-separated hosts/CIDRs exempt from the SSRF rules — for local test receivers only.
 * - WEBHOOK_CA_FILE: extra PEM CA(s) to trust (a test receiver's self-signed certificate).
 * - WEBHOOK_RETRY_SCHEDULE_MS: comma-separated delays (tests compress the 1 min … 12 h schedule).
 * - WEBHOOK_CONCURRENCY, WEBHOOK_LEASE_MS, WEBHOOK_POLL_MS: worker tuning.
 */
export const webhookEnvSchema = z.object({
  WEBHOOK_SECRET_KEY: z.string().optional(),
  WEBHOOK_SSRF_ALLOW: list,
  WEBHOOK_CA_FILE: z.string().optional(),
  WEBHOOK_RETRY_SCHEDULE_MS: list.pipe(z.array(z.string().regex(/^\d+$/, 'delays in whole milliseconds')).transform((a) => a.map(Number))),
  WEBHOOK_CONCURRENCY: z.coerce.number().int().min(1).max(256).default(16),
  WEBHOOK_LEASE_MS: z.coerce.number().int().min(100).default(30_000),
  WEBHOOK_POLL_MS: z.coerce.number().int().min(5).default(1000),
});

export interface WebhookSettings {
  readonly secretKey: Buffer;
  readonly allowList: SsrfAllowList;
  readonly ca?: string;
  readonly retrySchedule: readonly number[];
  readonly concurrency: number;
  readonly leaseMs: number;
  readonly pollIntervalMs: number;
}

export function loadWebhookSettings(env: NodeJS.ProcessEnv, dataDir: string): WebhookSettings {
  const c = webhookEnvSchema.parse(env);
  const hosts = c.WEBHOOK_SSRF_ALLOW.filter((e) => !/^[\d.]+(\/\d+)?$/.test(e) && !e.includes(':'));
  const cidrs = c.WEBHOOK_SSRF_ALLOW.filter((e) => !hosts.includes(e));
  return {
    secretKey: c.WEBHOOK_SECRET_KEY ? parseSecretKey(c.WEBHOOK_SECRET_KEY) : loadOrCreateKeyFile(join(dataDir, 'webhook-secret.key')),
    allowList: { hosts, cidrs },
    ca: c.WEBHOOK_CA_FILE ? readFileSync(c.WEBHOOK_CA_FILE, 'utf8') : undefined,
    retrySchedule: c.WEBHOOK_RETRY_SCHEDULE_MS.length ? c.WEBHOOK_RETRY_SCHEDULE_MS : DEFAULT_RETRY_SCHEDULE_MS,
    concurrency: c.WEBHOOK_CONCURRENCY,
    leaseMs: c.WEBHOOK_LEASE_MS,
    pollIntervalMs: c.WEBHOOK_POLL_MS,
  };
}
