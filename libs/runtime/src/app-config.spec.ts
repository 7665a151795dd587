import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_SEED } from '@dob/devnet';
import { APPS, ConfigError, appRequirements, appVariables, configVariables, loadAppConfig } from './app-config';

const KEY = 'a'.repeat(64);
const JWT = 'j'.repeat(32);

describe('loadAppConfig', () => {
  it('runs npm start on embedded defaults with no env vars', () => {
    const c = loadAppConfig('all', {});
    expect(c).toMatchObject({ PORT: 3000, DEVNET_PORT: 8000, DATA_DIR: './.data', INDEXER_START_LEDGER: 1 });
    expect(c.DATABASE_URL).toBeUndefined();
  });

  it('seeds the devnet alone and inside npm start with the same default seed', () => {
    expect(loadAppConfig('all', {}).DEVNET_SEED).toBe(DEFAULT_SEED);
    expect(loadAppConfig('devnet', {}).DEVNET_SEED).toBe(DEFAULT_SEED);
    expect(loadAppConfig('devnet', { DEVNET_SEED: 'off' }).DEVNET_SEED).toBe(false);
  });

  it('stops with one line naming the variable that is invalid', () => {
    expect(() => loadAppConfig('api', { PORT: 'abc', STELLAR_RPC_URL: 'http://x' })).toThrow(ConfigError);
    expect(() => loadAppConfig('all', { PORT: '70000' })).toThrow(/^invalid configuration: PORT /);
    expect(() => loadAppConfig('projector', { DATABASE_URL: 'not a url' })).toThrow(/DATABASE_URL/);
    expect(() => loadAppConfig('indexer', { STELLAR_RPC_URL: 'http://x', INDEXER_START_LEDGER: '0' })).toThrow(/INDEXER_START_LEDGER/);
    expect(() => loadAppConfig('indexer', { STELLAR_RPC_URL: 'http://x', DOB_WASM_HASHES: 'abc:splitter:1' })).toThrow(
      /DOB_WASM_HASHES bad entry "abc:splitter:1"/,
    );
    expect(() => loadAppConfig('notifier', { WEBHOOK_SECRET_KEY: 'short' })).toThrow(/WEBHOOK_SECRET_KEY must be 32 bytes/);
    try {
      loadAppConfig('all', { PORT: 'x', DEVNET_PORT: 'y' });
    } catch (e) {
      expect((e as Error).message).not.toContain('\n');
    }
  });

  it('ignores variables the app does not read (one environment can serve every app)', () => {
    expect(loadAppConfig('projector', { PORT: 'not a port', DEVNET_SEED: 'x' }).DATA_DIR).toBe('./.data');
  });

  it('treats an empty URL as unset', () => {
    expect(loadAppConfig('all', { DATABASE_URL: '' }).DATABASE_URL).toBeUndefined();
  });

  it('requires a chain for the API and the indexer alone', () => {
    expect(() => loadAppConfig('api', {})).toThrow(/STELLAR_RPC_URL or STELLAR_MAINNET_RPC_URL or DEVNET_URL is required/);
    expect(() => loadAppConfig('indexer', {})).toThrow(/STELLAR_RPC_URL or DEVNET_URL is required/);
    expect(loadAppConfig('indexer', { DEVNET_URL: 'http://localhost:8000' }).DEVNET_URL).toBe('http://localhost:8000');
  });

  it('requires the shared secrets when apps run alone on a server database', () => {
    const server = { DATABASE_URL: 'postgres://db/x', STELLAR_RPC_URL: 'http://rpc' };
    expect(() => loadAppConfig('api', server)).toThrow(/JWT_SECRET is required .*; WEBHOOK_SECRET_KEY is required/);
    expect(() => loadAppConfig('api', { ...server, WEBHOOK_SECRET_KEY: KEY })).toThrow(/^invalid configuration: JWT_SECRET is required/);
    expect(() => loadAppConfig('notifier', { DATABASE_URL: 'postgres://db/x' })).toThrow(/WEBHOOK_SECRET_KEY is required/);
    expect(loadAppConfig('api', { ...server, WEBHOOK_SECRET_KEY: KEY, JWT_SECRET: JWT }).JWT_SECRET).toBe(JWT);
    // Embedded (one process owns the data folder): the key files are enough.
    expect(loadAppConfig('api', { STELLAR_RPC_URL: 'http://rpc' }).JWT_SECRET).toBeUndefined();
    expect(loadAppConfig('all', { DATABASE_URL: 'postgres://db/x' }).DATABASE_URL).toBeDefined();
  });

  it('parses the list variables', () => {
    const c = loadAppConfig('indexer', {
      STELLAR_RPC_URL: 'http://x',
      DOB_WASM_HASHES: `${'AB'.repeat(32)}:splitter:2`,
      INDEXER_CONTRACTS: `C${'A'.repeat(55)}:crowdfunding:g`,
    });
    expect(c.DOB_WASM_HASHES).toEqual([{ hash: 'ab'.repeat(32), kind: 'splitter', version: '2', label: 'configured' }]);
    expect(c.INDEXER_CONTRACTS).toEqual([{ contractId: `C${'A'.repeat(55)}`, kind: 'crowdfunding', version: 'g' }]);
    expect(loadAppConfig('notifier', { WEBHOOK_RETRY_SCHEDULE_MS: '10, 20' }).WEBHOOK_RETRY_SCHEDULE_MS).toEqual([10, 20]);
  });

  it('validates the Kafka relay variables in the same schema (no second parser)', () => {
    expect(() => loadAppConfig('relay', {})).toThrow(/KAFKA_BROKERS is required/);
    expect(() => loadAppConfig('relay', { KAFKA_BROKERS: 'kafka' })).toThrow(/KAFKA_BROKERS\.0 host:port/);
    expect(() => loadAppConfig('all', { KAFKA_TOPIC_PREFIX: 'a b' })).toThrow(/KAFKA_TOPIC_PREFIX letters, digits/);
    const c = loadAppConfig('relay', { KAFKA_BROKERS: 'a:9092, b:9093', KAFKA_TOPIC_PARTITIONS: '6' });
    expect(c).toMatchObject({ KAFKA_BROKERS: ['a:9092', 'b:9093'], KAFKA_TOPIC_PARTITIONS: 6, KAFKA_CLIENT_ID: 'dob-kafka-relay', RELAY_HEALTH_PORT: 3002 });
    expect(loadAppConfig('all', { KAFKA_BROKERS: ' ' }).KAFKA_BROKERS).toBeUndefined();
  });

  it('can be enumerated per app (compose file check)', () => {
    for (const app of APPS) {
      for (const r of appRequirements[app]) for (const name of r.anyOf) expect(configVariables[name].apps).toContain(app);
    }
    expect(appVariables('projector')).toEqual([
      'DATA_DIR',
      'DATABASE_URL',
      'EVENTSTORE_URL',
      'MONGODB_URL',
      'HEALTH_PORT',
      'LEASE_DURATION_MS',
      'LEASE_HEARTBEAT_MS',
      'LOG_LEVEL',
      'METRICS_PORT',
    ]);
  });

  it("is the README's configuration table, variable for variable", () => {
    const readme = readFileSync(join(__dirname, '../../../README.md'), 'utf8');
    const table = readme.slice(readme.indexOf('## Configuration'), readme.indexOf('## Running apps alone'));
    const documented = new Set(
      table
        .split('\n')
        .filter((l) => l.startsWith('| `'))
        .flatMap((l) => [...l.split('|')[1].matchAll(/`([A-Z_]+)`/g)].map((m) => m[1])),
    );
    expect([...documented].sort()).toEqual(Object.keys(configVariables).sort());
  });

  it('takes MONGODB_URL for the read models (a mongodb:// URL), unset by default', () => {
    expect(loadAppConfig('all', {}).MONGODB_URL).toBeUndefined();
    expect(loadAppConfig('projector', { MONGODB_URL: 'mongodb://127.0.0.1:27017/dob' }).MONGODB_URL).toBe('mongodb://127.0.0.1:27017/dob');
    expect(() => loadAppConfig('projector', { MONGODB_URL: 'mongo at 27017' })).toThrow(/MONGODB_URL/);
  });
});
