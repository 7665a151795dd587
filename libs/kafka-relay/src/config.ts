import { appConfigSchema, ConfigError, type AppConfig } from '@dob/runtime';

/**
 * Kafka relay settings. Opt-in: without KAFKA_BROKERS there is no relay (the embedded default needs no server).
 * The variables, their defaults and their checks are part of the one configuration schema (libs/runtime
 * app-config.ts, listed in the README's table); this file only shapes them for the relay.
 */
const kafkaVariables = {
  KAFKA_BROKERS: true,
  KAFKA_CLIENT_ID: true,
  KAFKA_TOPIC_PREFIX: true,
  KAFKA_TOPIC_PARTITIONS: true,
  KAFKA_TOPIC_REPLICATION_FACTOR: true,
  KAFKA_RELAY_BATCH_SIZE: true,
  KAFKA_RELAY_POLL_MS: true,
  RELAY_HEALTH_PORT: true,
} as const;
export type KafkaVariables = Pick<AppConfig, keyof typeof kafkaVariables>;
const kafkaSchema = appConfigSchema.pick(kafkaVariables);

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

/** The relay's settings from validated configuration, or null when KAFKA_BROKERS is unset. */
export function kafkaRelaySettings(c: KafkaVariables): KafkaRelaySettings | null {
  if (!c.KAFKA_BROKERS) return null;
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

/**
 * Parses the KAFKA_* variables of the environment given (tests: a relay's settings without a whole configuration)
 * with the shared schema; a bad value throws ConfigError naming the variable. Apps take kafkaRelaySettings of
 * their configuration instead.
 */
export function loadKafkaRelaySettings(env: NodeJS.ProcessEnv): KafkaRelaySettings | null {
  return kafkaRelaySettings(parseKafkaVariables(env));
}

function parseKafkaVariables(env: NodeJS.ProcessEnv): KafkaVariables {
  const parsed = kafkaSchema.safeParse(Object.fromEntries(Object.keys(kafkaVariables).map((name) => [name, env[name]])));
  if (!parsed.success) {
    throw new ConfigError(`invalid Kafka configuration: ${parsed.error.issues.map((i) => `${i.path.join('.')} ${i.message}`).join('; ')}`);
  }
  return parsed.data;
}
