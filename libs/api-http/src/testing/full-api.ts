import { randomBytes } from 'node:crypto';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { walletEvents } from '@dob/auth';
import { createReadQueries } from '@dob/read-models';
import { HealthRegistry } from '@dob/runtime';
import { createPgliteDatabase, type SqlDatabase } from '@dob/sql';
import { createTradingService } from '@dob/trading';
import { createWebhookComponents, EventFeed, type WebhookComponents } from '@dob/webhooks';
import { accountKeypair } from '../../../../libs/read-models/src/testing/chain-scenario';
import { startReadModels, type ReadModelHarness } from '../../../../libs/read-models/src/testing/read-model-harness';
import { createApiAuth } from '../access';
import { createApiApp, type ApiAppOptions } from '../bootstrap';

export interface FullApi {
  readonly app: NestFastifyApplication;
  /** http://127.0.0.1:<port> */
  readonly base: string;
  /** A read + trade key with a rate limit no test reaches. */
  readonly key: string;
  close(): Promise<void>;
}

/**
 * Every controller of the API over real parts on one in-memory PGlite (auth, read models, webhooks, trading with
 * no network configured), listening on a free loopback port — for tests of what the whole HTTP surface does;
 * `options` set the per-IP limit, the HTTP limits and /metrics, and `db` another database to run on (e.g. PostgreSQL
 * behind a proxy a test cuts; closed by close() too).
 */
export async function startFullApi(
  options: Pick<ApiAppOptions, 'http' | 'metrics' | 'metricsToken'> & { readonly ipRateLimitRpm?: number; readonly db?: SqlDatabase } = {},
): Promise<FullApi> {
  const db: SqlDatabase = options.db ?? (await createPgliteDatabase());
  const h: ReadModelHarness = await startReadModels(db, walletEvents);
  const auth = await createApiAuth({
    db,
    events: h.store,
    jwt: { secret: 'full-api-test-secret-0123456789abcdef' },
    ipRateLimitRpm: options.ipRateLimitRpm ?? 100_000,
  });
  const webhooks: WebhookComponents = await createWebhookComponents({ db, secretKey: randomBytes(32) });
  const trading = await createTradingService({ db, networks: [] });
  const feed = new EventFeed({ db, eventStore: h.store });
  const app = await createApiApp(
    { health: new HealthRegistry(), auth, read: { queries: createReadQueries({ db }) }, webhooks: webhooks.service, trading, events: { feed } },
    { logger: false, http: options.http, metrics: options.metrics, metricsToken: options.metricsToken },
  );
  await app.listen(0, '127.0.0.1');
  const wallet = accountKeypair('full-api').publicKey();
  const created = await auth.keys.createKey(wallet, { label: 'full api', scopes: ['read', 'trade'], origin: 'register' });
  await auth.keys.setRateLimit(created.record.keyId, 100_000);
  return {
    app,
    base: `http://127.0.0.1:${(app.getHttpServer().address() as { port: number }).port}`,
    key: created.key,
    async close() {
      await app.close();
      await feed.close();
      webhooks.close();
      await auth.close();
      await h.close();
      await db.close();
    },
  };
}
