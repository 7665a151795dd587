import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AppConfig } from '@dob/runtime';
import type { SsrfAllowList } from './ssrf/address-policy';
import { DEFAULT_RETRY_SCHEDULE_MS } from './delivery/retry-schedule';
import { loadOrCreateKeyFile, parseSecretKey } from './secrets/secret-box';

/** The WEBHOOK_* variables of the app configuration (libs/runtime app-config.ts validates them). */
export type WebhookConfig = Pick<
  AppConfig,
  | 'WEBHOOK_SECRET_KEY'
  | 'WEBHOOK_SSRF_ALLOW'
  | 'WEBHOOK_CA_FILE'
  | 'WEBHOOK_RETRY_SCHEDULE_MS'
  | 'WEBHOOK_CONCURRENCY'
  | 'WEBHOOK_SEND_TIMEOUT_MS'
  | 'WEBHOOK_LEASE_MS'
  | 'WEBHOOK_POLL_MS'
  | 'AGENT_FEED_RETENTION_DAYS'
>;

export interface WebhookSettings {
  readonly secretKey: Buffer;
  readonly allowList: SsrfAllowList;
  readonly ca?: string;
  readonly retrySchedule: readonly number[];
  readonly concurrency: number;
  readonly sendTimeoutMs: number;
  readonly leaseMs: number;
  readonly pollIntervalMs: number;
  /** Days the agents' event feed keeps (the notifier prunes older entries hourly). */
  readonly feedRetentionDays: number;
}

/**
 * Settings from the validated configuration. Without WEBHOOK_SECRET_KEY the key is `<DATA_DIR>/webhook-secret.key`,
 * created 0600 (the embedded default: one process owns the folder; apps alone on a server database must set it).
 */
export function webhookSettings(c: WebhookConfig, dataDir: string): WebhookSettings {
  const hosts = c.WEBHOOK_SSRF_ALLOW.filter((e) => !/^[\d.]+(\/\d+)?$/.test(e) && !e.includes(':'));
  const cidrs = c.WEBHOOK_SSRF_ALLOW.filter((e) => !hosts.includes(e));
  return {
    secretKey: c.WEBHOOK_SECRET_KEY ? parseSecretKey(c.WEBHOOK_SECRET_KEY) : loadOrCreateKeyFile(join(dataDir, 'webhook-secret.key')),
    allowList: { hosts, cidrs },
    ca: c.WEBHOOK_CA_FILE ? readFileSync(c.WEBHOOK_CA_FILE, 'utf8') : undefined,
    retrySchedule: c.WEBHOOK_RETRY_SCHEDULE_MS.length ? c.WEBHOOK_RETRY_SCHEDULE_MS : DEFAULT_RETRY_SCHEDULE_MS,
    concurrency: c.WEBHOOK_CONCURRENCY,
    sendTimeoutMs: c.WEBHOOK_SEND_TIMEOUT_MS,
    leaseMs: c.WEBHOOK_LEASE_MS,
    pollIntervalMs: c.WEBHOOK_POLL_MS,
    feedRetentionDays: c.AGENT_FEED_RETENTION_DAYS,
  };
}
