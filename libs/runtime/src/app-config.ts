import ipaddr from 'ipaddr.js';
import { z } from 'zod';

/**
 * The one process configuration every app reads, validated once at start (no app reads `process.env` itself).
 * Each variable names the apps that read it; `appRequirements` says which an app cannot start without. Every value
 * has an embedded default for `npm start`; a bad or missing value stops the app with one line naming the variable.
 * `docker-compose.yml` and the README's tables use these names; `configVariables` / `appRequirements` are exported
 * so a test can enumerate them.
 */
export const APPS = ['all', 'api', 'indexer', 'projector', 'notifier', 'relay', 'devnet', 'ops'] as const;
export type AppName = (typeof APPS)[number];

const port = z.coerce.number().int().min(0).max(65535);
const optionalUrl = z
  .string()
  .trim()
  .transform((v) => (v === '' ? undefined : v))
  .pipe(z.string().url().optional())
  .optional();
const optionalText = z
  .string()
  .transform((v) => (v.trim() === '' ? undefined : v))
  .optional();
const list = z
  .string()
  .optional()
  .transform((v) =>
    (v ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
  );

/** A comma-separated list of `a:b:c` entries, each checked by `parse` (which returns undefined for a bad one). */
function entries<T>(want: string, parse: (parts: string[]) => T | undefined) {
  return list.transform((items, ctx) =>
    items.flatMap((entry) => {
      const parsed = parse(entry.split(':'));
      if (parsed !== undefined) return [parsed];
      ctx.addIssue({ code: 'custom', message: `bad entry "${entry}" (want ${want})` });
      return [];
    }),
  );
}

const CONTRACT_KINDS = ['splitter', 'participation_token', 'crowdfunding', 'sac', 'exit_liquidity'] as const;
const isKind = (k: string | undefined): k is (typeof CONTRACT_KINDS)[number] => (CONTRACT_KINDS as readonly string[]).includes(k ?? '');
const isContract = (c: string | undefined): c is string => /^C[A-Z2-7]{55}$/.test(c ?? '');

function isAddressOrCidr(text: string): boolean {
  return ipaddr.isValid(text) || (text.includes('/') && ipaddr.isValidCIDR(text));
}

interface Variable<S extends z.ZodType> {
  readonly schema: S;
  readonly apps: readonly AppName[];
  readonly doc: string;
}
const v = <S extends z.ZodType>(schema: S, apps: readonly AppName[], doc: string): Variable<S> => ({ schema, apps, doc });

const SERVERS: readonly AppName[] = ['all', 'api', 'indexer', 'projector', 'notifier', 'relay', 'ops'];

/** Every variable, the apps that read it, and what it means (README's configuration table). */
export const configVariables = {
  DATA_DIR: v(z.string().min(1).default('./.data'), [...SERVERS, 'devnet'], 'data folder: embedded PGlite, the devnet chain, key files'),
  DATABASE_URL: v(optionalUrl, SERVERS, 'PostgreSQL for the event store and read models; unset = embedded PGlite in DATA_DIR'),
  EVENTSTORE_URL: v(
    optionalUrl,
    SERVERS,
    'EventStoreDB/KurrentDB ≥ 25.1 for the event store (kurrentdb://host:2113?tls=false); unset = the SQL database. Not exercised against a server in CI (docs/event-store.md)',
  ),
  MONGODB_URL: v(optionalUrl, ['all', 'api', 'projector', 'ops'], 'MongoDB for the read models (mongodb://host:port/<database>); unset = the SQL database'),
  PORT: v(port.default(3000), ['all', 'api'], 'Agent API port'),
  HEALTH_PORT: v(port.optional(), ['indexer', 'projector', 'notifier'], 'GET /health on this port (apps without an API); unset = none'),

  STELLAR_RPC_URL: v(optionalUrl, ['all', 'api', 'indexer'], 'Stellar RPC of network 9 (testnet id); unset = the embedded devnet (npm start) or DEVNET_URL'),
  STELLAR_NETWORK_PASSPHRASE: v(optionalText, ['all', 'api', 'indexer'], "network 9's passphrase; default testnet's, or the devnet's"),
  STELLAR_MAINNET_RPC_URL: v(optionalUrl, ['api'], 'Stellar RPC of network 10 (mainnet id)'),
  STELLAR_RPC_TIMEOUT_MS: v(
    z.coerce.number().int().min(100).max(120_000).default(1500),
    ['all', 'api'],
    "each of the API's calls to a Stellar RPC (prepare, submit, status) must answer within this, or the request gets 503 NETWORK_UNAVAILABLE + Retry-After: a silent RPC never holds an agent past 2 s",
  ),
  STELLAR_TOKENS: v(
    entries('SYMBOL:C…:decimals[:networkId]', ([symbol, address, decimals, network]) =>
      symbol && isContract(address) && /^\d+$/.test(decimals ?? '') && (network === undefined || /^(9|10)$/.test(network))
        ? { symbol, address, decimals: Number(decimals), networkId: network ? Number(network) : 9 }
        : undefined,
    ),
    ['api', 'notifier'],
    'payment tokens with a configured symbol and decimals',
  ),
  DEVNET_URL: v(
    optionalUrl,
    ['api', 'indexer', 'notifier'],
    'a devnet started by `npm run start:devnet` (e.g. http://localhost:8000): its RPC, passphrase, token, stand-in wasm hashes and seeded pools come from its /devnet/contracts',
  ),

  REDIS_URL: v(optionalUrl, ['all', 'api'], 'Redis for rate limits shared by API instances; unset = in-process'),
  JWT_SECRET: v(
    z.string().min(32, 'must be at least 32 characters').optional(),
    ['all', 'api'],
    'HS256 key for key-management JWTs; unset = a key file in DATA_DIR',
  ),

  DEVNET_PORT: v(port.default(8000), ['all', 'devnet'], 'devnet RPC port'),
  DEVNET_HOST: v(z.string().min(1).default('127.0.0.1'), ['devnet'], 'devnet listen address'),
  DEVNET_SEED: v(
    z
      .string()
      .trim()
      .default('20260101') // = DEFAULT_SEED of libs/devnet (checked by app-config.spec)
      .transform((seed, ctx): number | false => {
        if (seed === 'off' || seed === 'false') return false;
        if (/^\d+$/.test(seed)) return Number(seed);
        ctx.addIssue({ code: 'custom', message: 'must be a whole number or "off"' });
        return false;
      }),
    ['all', 'devnet'],
    'seed of the devnet seeder on an empty chain, or "off"',
  ),
  DEVNET_LEDGER_INTERVAL_MS: v(z.coerce.number().int().min(50).max(60_000).default(1000), ['all', 'devnet'], 'devnet ledger close interval'),
  DEVNET_RETENTION_LEDGERS: v(z.coerce.number().int().min(10).optional(), ['all', 'devnet'], 'devnet getEvents retention (default 120960)'),

  INDEXER_START_LEDGER: v(z.coerce.number().int().min(1).default(1), ['all', 'indexer'], 'where a new indexer starts its backfill'),
  INDEXER_POLL_MS: v(
    z.coerce.number().int().min(50).max(60_000).optional(),
    ['all', 'indexer'],
    'how long a live indexer waits before asking the RPC again; unset = 500 under npm start (its devnet closes a ledger a second), 2000 alone',
  ),
  INDEXER_RPC_SLOW_MS: v(
    z.coerce.number().int().min(100).max(600_000).default(10_000),
    ['all', 'indexer'],
    "an RPC call unanswered this long makes the indexer's /health degraded, naming the RPC (a call itself may wait 30 s for a large page)",
  ),
  INDEXER_SCHEDULER_MS: v(
    z.coerce.number().int().min(100).max(600_000).optional(),
    ['all', 'indexer'],
    'interval of the time-driven scheduler (claims available, campaigns effectively failed); unset = 2000 under npm start, 5000 alone',
  ),
  INDEXER_NETWORK_ID: v(
    z.coerce
      .number()
      .int()
      .pipe(z.union([z.literal(9), z.literal(10)]))
      .default(9),
    ['indexer'],
    'network the indexer ingests (9 testnet/devnet, 10 mainnet)',
  ),
  DOB_WASM_HASHES: v(
    entries('hash:kind:version', ([hash, kind, version]) =>
      /^[0-9a-f]{64}$/i.test(hash ?? '') && isKind(kind) && version ? { hash: hash!.toLowerCase(), kind, version, label: 'configured' } : undefined,
    ),
    ['indexer'],
    'extra Dob wasm hashes the indexer accepts (hash:kind:version, comma-separated)',
  ),
  INDEXER_CONTRACTS: v(
    entries('C…:kind:version', ([contractId, kind, version]) =>
      isContract(contractId) && isKind(kind) && version ? { contractId, kind, version } : undefined,
    ),
    ['indexer'],
    'contracts watched regardless of discovery (C…:kind:version, comma-separated)',
  ),

  WEBHOOK_SECRET_KEY: v(
    optionalText.pipe(
      z
        .string()
        .regex(/^([0-9a-fA-F]{64}|[A-Za-z0-9+/]{43}=?)$/, 'must be 32 bytes: 64 hex chars or base64')
        .optional(),
    ),
    ['all', 'api', 'notifier'],
    'AES-256 key of webhook secrets at rest; unset = a key file in DATA_DIR',
  ),
  WEBHOOK_SSRF_ALLOW: v(list, ['all', 'api', 'notifier'], 'hosts/CIDRs exempt from the SSRF rules (local test receivers only)'),
  WEBHOOK_CA_FILE: v(optionalText, ['all', 'api', 'notifier'], 'extra PEM CA to trust (a test receiver)'),
  WEBHOOK_RETRY_SCHEDULE_MS: v(
    list.pipe(z.array(z.string().regex(/^\d+$/, 'delays in whole milliseconds')).transform((a) => a.map(Number))),
    ['all', 'notifier'],
    'retry delays (default 1 min, 5 min, 30 min, 2 h, 12 h)',
  ),
  WEBHOOK_CONCURRENCY: v(z.coerce.number().int().min(1).max(256).default(16), ['all', 'notifier'], 'deliveries in flight'),
  WEBHOOK_SEND_TIMEOUT_MS: v(z.coerce.number().int().min(100).default(10_000), ['all', 'notifier'], "a delivery's deadline (connect to answer)"),
  WEBHOOK_LEASE_MS: v(
    z.coerce.number().int().min(100).default(30_000),
    ['all', 'notifier'],
    'delivery lease (above the send timeout plus 1 s; the notifier refuses to start otherwise)',
  ),
  WEBHOOK_POLL_MS: v(z.coerce.number().int().min(5).default(1000), ['all', 'notifier'], 'longest idle sleep of the delivery worker'),
  AGENT_FEED_RETENTION_DAYS: v(
    z.coerce.number().int().min(1).max(3650).default(30),
    ['all', 'notifier'],
    "days the agents' event feed keeps (older cursors get 410 CURSOR_EXPIRED)",
  ),

  LEASE_DURATION_MS: v(
    z.coerce.number().int().min(500).max(600_000).default(5_000),
    ['indexer', 'projector', 'notifier', 'relay'],
    "several copies on PostgreSQL: how long an owner's lease on its work (projection, fan-out, relay, ingestion, scheduler) lasts unrenewed; a standby takes over within this plus one heartbeat",
  ),
  LEASE_HEARTBEAT_MS: v(
    z.coerce.number().int().min(50).max(60_000).default(1_000),
    ['indexer', 'projector', 'notifier', 'relay'],
    'how often leases are renewed and lapsed ones tried (below LEASE_DURATION_MS)',
  ),

  LOG_LEVEL: v(
    z.enum(['fatal', 'error', 'warn', 'log', 'info', 'debug', 'verbose', 'trace', 'silent']).default('log'),
    ['all', 'api', 'indexer', 'projector', 'notifier', 'relay'],
    "JSON log threshold: Nest's names (log = info, verbose = trace) or pino's (docs/operations.md)",
  ),
  METRICS_PORT: v(
    port.optional(),
    ['all', 'api', 'indexer', 'projector', 'notifier', 'relay'],
    '/metrics and /health/live on a port of their own (the API port serves /metrics only with METRICS_TOKEN)',
  ),
  METRICS_TOKEN: v(
    optionalText.pipe(z.string().min(16, 'at least 16 characters').optional()),
    ['all', 'api'],
    'bearer token GET /metrics asks for on the API port; unset = /metrics is not served there',
  ),
  API_IP_RATE_LIMIT_RPM: v(
    z.coerce.number().int().min(1).max(1_000_000).default(60),
    ['all', 'api'],
    'requests per minute per client IP without a valid API key (registration, challenges, JWT)',
  ),
  API_REQUEST_TIMEOUT_MS: v(
    z.coerce.number().int().min(1000).max(120_000).default(10_000),
    ['all', 'api'],
    'a request (headers and body) must arrive within this, or 408 and the connection is closed',
  ),
  API_HEADERS_TIMEOUT_MS: v(z.coerce.number().int().min(1000).max(60_000).default(5_000), ['all', 'api'], 'request headers must arrive within this'),
  API_KEEP_ALIVE_TIMEOUT_MS: v(
    z.coerce.number().int().min(100).max(120_000).default(5_000),
    ['all', 'api'],
    'an idle kept-alive connection is closed after this',
  ),
  API_CONNECTIONS_PER_CLIENT: v(
    z.coerce.number().int().min(1).max(100_000).default(128),
    ['all', 'api'],
    'open connections per client address (IPv6 per /64); trusted proxies are exempt',
  ),
  API_TRUSTED_PROXIES: v(
    list.pipe(z.array(z.string().refine(isAddressOrCidr, 'an IP address or CIDR'))),
    ['all', 'api'],
    'addresses/CIDRs of reverse proxies whose X-Forwarded-For gives the client address; unset = the socket address',
  ),

  // The Kafka relay's settings (libs/kafka-relay turns them into its settings with kafkaRelaySettings).
  KAFKA_BROKERS: v(
    list.pipe(z.array(z.string().regex(/^[A-Za-z0-9.-]+:\d{1,5}$/, 'host:port'))).transform((brokers) => (brokers.length ? brokers : undefined)),
    ['all', 'relay', 'ops'],
    "host:port,…: publish every domain event to the analysts' Kafka topics (docs/kafka.md); unset = no relay",
  ),
  KAFKA_TOPIC_PREFIX: v(
    z
      .string()
      .trim()
      .regex(/^[A-Za-z0-9._-]*$/, 'letters, digits, ".", "_" and "-" only')
      .default(''),
    ['all', 'relay', 'ops'],
    'prefix of every topic name (e.g. staging.); also names the checkpoint',
  ),
  KAFKA_TOPIC_PARTITIONS: v(z.coerce.number().int().min(1).max(1000).default(3), ['all', 'relay', 'ops'], 'partitions of the topics the relay creates'),
  KAFKA_TOPIC_REPLICATION_FACTOR: v(
    z.coerce.number().int().min(1).max(10).default(1),
    ['all', 'relay', 'ops'],
    'replication factor of the topics the relay creates',
  ),
  KAFKA_CLIENT_ID: v(z.string().trim().min(1).default('dob-kafka-relay'), ['all', 'relay', 'ops'], 'Kafka client id'),
  KAFKA_RELAY_BATCH_SIZE: v(z.coerce.number().int().min(1).max(10_000).default(500), ['all', 'relay', 'ops'], 'events per produce batch'),
  KAFKA_RELAY_POLL_MS: v(
    z.coerce.number().int().min(5).max(60_000).default(1000),
    ['all', 'relay', 'ops'],
    'fallback poll interval of the relay (appends on the same database wake it at once through NOTIFY)',
  ),
  RELAY_HEALTH_PORT: v(port.default(3002), ['relay', 'ops'], 'GET /health of `npm run start:relay`'),
} as const;

export type ConfigVariable = keyof typeof configVariables;
type Shape = { [K in ConfigVariable]: (typeof configVariables)[K]['schema'] };

export const appConfigSchema = z.object(Object.fromEntries(Object.entries(configVariables).map(([name, spec]) => [name, spec.schema])) as Shape);

export type AppConfig = z.infer<typeof appConfigSchema>;

/** What an app cannot start without: one of `anyOf` set (always, or only when it runs on a server database). */
export interface Requirement {
  readonly anyOf: readonly ConfigVariable[];
  readonly when?: 'DATABASE_URL';
  readonly why: string;
}

const ALONE = 'when the app runs alone on a server database (DATABASE_URL), every process must share it';

export const appRequirements: Readonly<Record<AppName, readonly Requirement[]>> = {
  all: [],
  api: [
    { anyOf: ['STELLAR_RPC_URL', 'STELLAR_MAINNET_RPC_URL', 'DEVNET_URL'], why: 'the API alone needs a chain (npm start embeds a devnet)' },
    { anyOf: ['JWT_SECRET'], when: 'DATABASE_URL', why: `${ALONE}: a token signed by one API replica must verify on another` },
    { anyOf: ['WEBHOOK_SECRET_KEY'], when: 'DATABASE_URL', why: `${ALONE}: the notifier decrypts the webhook secrets the API encrypts` },
  ],
  indexer: [{ anyOf: ['STELLAR_RPC_URL', 'DEVNET_URL'], why: 'the indexer needs a chain to read' }],
  projector: [],
  notifier: [{ anyOf: ['WEBHOOK_SECRET_KEY'], when: 'DATABASE_URL', why: `${ALONE}: the notifier decrypts the webhook secrets the API encrypts` }],
  relay: [{ anyOf: ['KAFKA_BROKERS'], why: 'the relay needs the brokers to publish to' }],
  devnet: [],
  ops: [],
};

/** The variables an app reads. */
export function appVariables(app: AppName): ConfigVariable[] {
  return (Object.keys(configVariables) as ConfigVariable[]).filter((name) => configVariables[name].apps.includes(app));
}

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/**
 * Validates the variables `app` reads (others in the environment are ignored, so one shared environment — a
 * compose file — can serve every app) and its requirements. Throws a ConfigError whose message is one line.
 */
export function loadAppConfig(app: AppName, env: NodeJS.ProcessEnv = process.env): AppConfig {
  const own = Object.fromEntries(appVariables(app).map((name) => [name, env[name]]));
  const parsed = appConfigSchema.safeParse(own);
  if (!parsed.success) {
    throw new ConfigError(`invalid configuration: ${parsed.error.issues.map((i) => `${i.path.join('.')} ${i.message}`).join('; ')}`);
  }
  const missing = appRequirements[app]
    .filter((r) => r.when === undefined || parsed.data[r.when] !== undefined)
    .filter((r) => r.anyOf.every((name) => parsed.data[name] === undefined))
    .map((r) => `${r.anyOf.join(' or ')} is required (${r.why})`);
  if (missing.length) throw new ConfigError(`invalid configuration: ${missing.join('; ')}`);
  return parsed.data;
}
