import { z } from 'zod';

/**
 * Process configuration, validated once at start. Every value has an embedded default so `npm start` needs no
 * env vars; setting DATABASE_URL (and later EVENTSTORE_URL / MONGODB_URL / KAFKA_BROKERS) moves a component to a
 * server. Invalid values stop the process with a message naming the variable.
 */
const port = z.coerce.number().int().min(0).max(65535);
const optionalUrl = z
  .string()
  .trim()
  .transform((v) => (v === '' ? undefined : v))
  .pipe(z.string().url().optional())
  .optional();

export const appConfigSchema = z.object({
  PORT: port.default(3000),
  DEVNET_PORT: port.default(8000),
  DATA_DIR: z.string().min(1).default('./.data'),
  /** PostgreSQL for the event store and read models; unset = embedded PGlite in DATA_DIR. */
  DATABASE_URL: optionalUrl,
  /** EventStoreDB / KurrentDB for the event store (kurrentdb://…); unset = the event store is in the SQL database. */
  EVENTSTORE_URL: optionalUrl,
  /** MongoDB for the read models (mongodb://host:port/<database>); unset = the SQL database above. */
  MONGODB_URL: optionalUrl,
  /** Stellar network 9 (testnet id) RPC; unset = the embedded devnet. */
  STELLAR_RPC_URL: optionalUrl,
  STELLAR_NETWORK_PASSPHRASE: z.string().min(1).optional(),
  /** Stellar network 10 (mainnet id), optional. */
  STELLAR_MAINNET_RPC_URL: optionalUrl,
  /** Payment tokens with configured symbol/decimals: "SYMBOL:C…:decimals[:networkId]" comma-separated. */
  STELLAR_TOKENS: z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (!v?.trim()) return [];
      return v.split(',').map((entry) => {
        const [symbol, address, decimals, network] = entry.trim().split(':');
        if (!symbol || !/^C[A-Z2-7]{55}$/.test(address ?? '') || !/^\d+$/.test(decimals ?? '')) {
          ctx.addIssue({ code: 'custom', message: `bad token entry "${entry}" (want SYMBOL:C…:decimals[:networkId])` });
          return { symbol: '', address: '', decimals: 0, networkId: 9 };
        }
        return { symbol, address: address!, decimals: Number(decimals), networkId: network ? Number(network) : 9 };
      });
    }),
  /** Redis for rate limits shared by API instances; unset = in-process limiter (one embedded instance). */
  REDIS_URL: optionalUrl,
  /** HS256 key for key-management JWTs; unset = a key file created once in DATA_DIR. */
  JWT_SECRET: z.string().min(32, 'JWT_SECRET must be at least 32 characters').optional(),
  DEVNET_LEDGER_INTERVAL_MS: z.coerce.number().int().min(50).max(60_000).default(1000),
  DEVNET_SEED: z.coerce.number().int().min(0).default(1),
  INDEXER_START_LEDGER: z.coerce.number().int().min(1).optional(),
  /** JSON log threshold: Nest's names (log = info, verbose = trace) or pino's. */
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'log', 'info', 'debug', 'verbose', 'trace', 'silent']).default('log'),
  /** Apps running alone without an HTTP server of their own (indexer, projector, notifier) serve /metrics here. */
  METRICS_PORT: port.optional(),
  /** Requests per minute per client IP on calls without a valid API key (registration, challenges, JWT). */
  API_IP_RATE_LIMIT_RPM: z.coerce.number().int().min(1).max(1_000_000).default(60),
});

export type AppConfig = z.infer<typeof appConfigSchema>;

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

export function loadAppConfig(env: NodeJS.ProcessEnv = process.env): AppConfig {
  const parsed = appConfigSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`invalid configuration:\n${lines.join('\n')}`);
  }
  return parsed.data;
}
