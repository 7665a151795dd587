import { join } from 'node:path';
import { FailSafeRateLimiter, InProcessRateLimiter, RedisRateLimiter } from '@dob/rate-limit';
import { createReadQueries, type ReadModelStorage, type TokenInfo } from '@dob/read-models';
import { checkSecretFingerprint, readOrCreateSecretFile, watchDependencies, type DependencyWatcher, type HealthRegistry, type Storage } from '@dob/runtime';
import { createTradingService, type StellarNetwork } from '@dob/trading';
import { EventFeed, migrateWebhooks, type WebhookService } from '@dob/webhooks';
import type { ApiDependencies } from './api.module';
import { createApiAuth } from './access';

export interface ApiCompositionOptions {
  readonly storage: Storage;
  /** Where the read models are (openReadModelStorage: the SQL database, or MongoDB). */
  readonly readModels: ReadModelStorage;
  readonly health: HealthRegistry;
  /** Stellar networks trading may use (ids 9 / 10). */
  readonly networks: readonly StellarNetwork[];
  /** Payment tokens whose symbol and decimals are configured. */
  readonly tokens: readonly TokenInfo[];
  /** The webhook service of a notifier in this process, or components created for the API alone. */
  readonly webhooks: WebhookService;
  /** Redis for rate limits shared by API instances; unset = in-process. */
  readonly redisUrl?: string;
  /** Watches the servers behind the API (Redis here): /health per server, outages logged and counted. */
  readonly dependencies?: DependencyWatcher;
  /** Per-IP limit of calls without a valid API key (default 60 rpm). */
  readonly ipRateLimitRpm?: number;
  /** JWT signing key; unset = a key file kept in the data folder. */
  readonly jwtSecret?: string;
}

/**
 * Builds everything the API serves from the storage it is given — shared by `npm start` (apps/all) and the API
 * running alone (apps/api/src/main.ts), so both compose the same auth, read models, trading and webhooks.
 */
export async function composeApiDependencies(o: ApiCompositionOptions): Promise<{ deps: ApiDependencies; close(): Promise<void> }> {
  const jwtSecret = o.jwtSecret ?? readOrCreateSecretFile(join(o.storage.dataDir, 'jwt-secret.key')).toString('hex');
  // API replicas on one database must sign with one key, or a token from one is refused by the next.
  await checkSecretFingerprint(o.storage.db, { name: 'jwt_secret', variable: 'JWT_SECRET', secret: Buffer.from(jwtSecret, 'utf8') });
  // Read-model results are kept until the projections commit a change (SQL: LISTEN/NOTIFY, see read-result-cache.ts;
  // MongoDB: the bookkeeping's change token, see mongo-read-model-reader.ts).
  const readCache = await o.readModels.openCachedReader();
  const read = { queries: createReadQueries({ reader: readCache.reader, tokens: o.tokens }), changes: readCache.changes };
  const auth = await createApiAuth({
    db: o.storage.db,
    events: o.storage.eventStore,
    rateLimiter: o.redisUrl ? failSafeRateLimiter(o.redisUrl, o) : undefined,
    ipRateLimitRpm: o.ipRateLimitRpm,
    jwt: { secret: jwtSecret },
  });
  const trading = await createTradingService({ db: o.storage.db, networks: o.networks, readModels: o.readModels.reader });
  // The feed table is written by the notifier's fan-out; the API may start first, so it creates it too (idempotent).
  await migrateWebhooks(o.storage.db);
  const feed = new EventFeed({ db: o.storage.db, eventStore: o.storage.eventStore });
  return {
    deps: { health: o.health, auth, read, trading, webhooks: o.webhooks, events: { feed } },
    close: async () => {
      await feed.close();
      await auth.close();
      await readCache.close();
    },
  };
}

/**
 * Redis while it answers, this instance's own window while it does not (docs/auth.md "When Redis is away"): /health
 * says `redis: degraded` and stays 200, the outage is logged and counted.
 */
function failSafeRateLimiter(url: string, o: Pick<ApiCompositionOptions, 'health' | 'dependencies'>): FailSafeRateLimiter {
  const shared = new RedisRateLimiter({ url });
  if (o.dependencies) {
    watchDependencies(o.health, o.dependencies, {
      redis: { probe: () => shared.redis.ping(), optional: true, meanwhile: 'rate limits are kept per API instance' },
    });
  }
  return new FailSafeRateLimiter(shared, new InProcessRateLimiter(), { onAvailability: (up, e) => o.dependencies?.report('redis', up, e) });
}
