import { TEST_POSTGRES_URL } from '../libs/sql/src/testing/test-databases';

/**
 * Where the integration tests find the real servers `npm run services` starts (scripts/services.sh); each can be
 * pointed elsewhere with its TEST_* variable.
 */
export const testServices = {
  postgres: TEST_POSTGRES_URL,
  redis: process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379',
  kafkaBrokers: (process.env.TEST_KAFKA_BROKERS ?? '127.0.0.1:9092').split(','),
  mongodb: process.env.TEST_MONGODB_URL ?? 'mongodb://127.0.0.1:27017/',
} as const;
