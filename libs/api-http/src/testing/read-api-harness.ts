import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { walletEvents } from '@dob/auth';
import { createReadQueries } from '@dob/read-models';
import { InProcessRateLimiter } from '@dob/rate-limit';
import { HealthRegistry } from '@dob/runtime';
import type { StreamAppend } from '@dob/event-store';
import { accountKeypair } from '../../../../libs/read-models/src/testing/chain-scenario';
import type { ReadModelBackend, ReadModelBackendFactory } from '../../../../libs/read-models/src/testing/read-model-backends';
import { createApiAuth } from '../access';
import { createApiApp } from '../bootstrap';

export interface ReadApi {
  readonly backend: ReadModelBackend;
  readonly app: NestFastifyApplication;
  /** GET through app.inject with an API key (none when key is ''). */
  get(url: string, key: string): Promise<{ status: number; body: any; raw: string }>;
  /** Registers the named test wallet (challenge signed with its key) for a `read` key. */
  register(name: string): Promise<string>;
  close(): Promise<void>;
}

/**
 * Test support: the read API (app.inject) over read models projected by the real runner into one backend from
 * `history`, queries at a fixed `now`. The auth clock ticks 1.1 s per call so the per-key limit (60 rpm) never
 * refuses a paced client.
 */
export async function startReadApi(factory: ReadModelBackendFactory, history: readonly StreamAppend[], now: Date): Promise<ReadApi> {
  const backend = await factory.open(walletEvents);
  let authClock = Date.parse('2026-03-10T12:00:00Z');
  try {
    await backend.harness.append(history);
    const auth = await createApiAuth({
      db: backend.db,
      events: backend.harness.store,
      rateLimiter: new InProcessRateLimiter(() => authClock),
      clock: () => (authClock += 1100),
      jwt: { secret: 'test-secret-0123456789abcdef' },
    });
    const app = await createApiApp(
      { health: new HealthRegistry(), auth, read: { queries: createReadQueries({ reader: backend.reader, now: () => now }) } },
      { logger: false },
    );
    await app.init();
    await app.getHttpAdapter().getInstance().ready();
    const get = async (url: string, key: string) => {
      const r = await app.inject({ method: 'GET', url: `/api/agent${url}`, headers: key ? { 'x-api-key': key } : {} });
      return { status: r.statusCode, body: r.json(), raw: r.body };
    };
    return {
      backend,
      app,
      get,
      async register(name) {
        const kp = accountKeypair(name);
        const c = await app.inject({ method: 'GET', url: `/api/agent/auth/challenge/${kp.publicKey()}` });
        const message = c.json().data.message as string;
        const r = await app.inject({
          method: 'POST',
          url: '/api/agent/auth/register',
          headers: { 'content-type': 'application/json' },
          payload: JSON.stringify({
            wallet: kp.publicKey(),
            signature: Buffer.from(kp.sign(Buffer.from(message, 'utf8'))).toString('hex'),
            label: name,
            scopes: ['read'],
          }),
        });
        if (r.statusCode !== 201) throw new Error(`register ${name}: ${r.statusCode} ${r.body}`);
        return r.json().data.api_key.key;
      },
      async close() {
        await app.close();
        await auth.close();
        await backend.close();
      },
    };
  } catch (e) {
    await backend.close();
    throw e;
  }
}
