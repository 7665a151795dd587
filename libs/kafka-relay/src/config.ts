import { z } from 'zod';
import { ConfigError } from '@dob/runtime';

const broker = z.string().regex(/^[A-Za-z0-9.-]+:\d{1,5}$/, 'host:port');

/**
 * Kafka relay settings. Opt-in: without KAFKA_BROKERS there is no relay (the embedded default needs no server).
 * - KAFKA_BROKERS: bootstrap brokers, `host:port` comma-separated.
 * - KAFKA_CLIENT_ID (default dob-kafka-relay), KAFKA_TOPIC_PREFIX (default none; e.g. `staging.`).
 * - KAFKA_TOPIC_PARTITIONS (default 3), KAFKA_TOPIC_REPLICATION_FACTOR (default 1): for topics the relay creates.
 * - KAFKA_RELAY_BATCH_SIZE (default 500 events per produce batch), KAFKA_RELAY_POLL_MS (default 1000; appends on
 *   the same database wake the relay at once through NOTIFY, polling is the fallback).
 * - RELAY_HEALTH_PORT (default 3002): GET /health of the standalone relay (`npm run start:relay`).
 */
export const kafkaEnvSchema = z.object({
  KAFKA_BROKERS: z
    .string()
    .optional()
    .transform((v) => (v ?? '').split(',').map((s) => s.trim()).filter(Boolean))
    .pipe(z.array(broker)),
  KAFKA_CLIENT_ID: z.string().trim().min(1).default('dob-kafka-relay'),
  KAFKA_TOPIC_PREFIX: z.string().trim().regex(/^[A-Za-z0-9._-]*$/, 'letters, digits, ".", "_" and "-" only').default(''),
  KAFKA_TOPIC_PARTITIONS: z.coerce.number().int().min(1).max(1000).default(3),
  KAFKA_TOPIC_REPLICATION_FACTOR: z.coerce.number().int().min(1).max(10).default(1),
  KAFKA_RELAY_BATCH_SIZE: z.coerce.number().int().min(1).max(10_000).default(500),
  KAFKA_RELAY_POLL_MS: z.coerce.number().int().min(5).max(60_000).default(1000),
  RELAY_HEALTH_PORT: z.coerce.number().int().min(0).max(65535).default(3002),
});

export interface KafkaRelaySettings {
  readonly brokers: readonly string[];
  readonly clientId: string;
  readonly topicPrefix: string;
  readonly partitions: number;
  readonly replicationFactor: number;
  readonly batchSize: number;
  readonly pollIntervalMs: number;
  readonly healthPort: number;
}

/** The deployment's topic prefix alone (ops `kafka status` needs it without brokers). */
export function kafkaTopicPrefix(env: NodeJS.ProcessEnv = process.env): string {
  return kafkaEnvSchema.shape.KAFKA_TOPIC_PREFIX.parse(env.KAFKA_TOPIC_PREFIX);
}

/** The relay's settings, or null when KAFKA_BROKERS is unset; a bad value throws ConfigError naming the variable. */
export function loadKafkaRelaySettings(env: NodeJS.ProcessEnv = process.env): KafkaRelaySettings | null {
  const parsed = kafkaEnvSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`invalid Kafka configuration:\n${lines.join('\n')}`);
  }
  const c = parsed.data;
  if (c.KAFKA_BROKERS.length === 0) return null;
  return {
    brokers: c.KAFKA_BROKERS,
    clientId: c.KAFKA_CLIENT_ID,
    topicPrefix: c.KAFKA_TOPIC_PREFIX,
    partitions: c.KAFKA_TOPIC_PARTITIONS,
    replicationFactor: c.KAFKA_TOPIC_REPLICATION_FACTOR,
    batchSize: c.KAFKA_RELAY_BATCH_SIZE,
    pollIntervalMs: c.KAFKA_RELAY_POLL_MS,
    healthPort: c.RELAY_HEALTH_PORT,
  };
}
