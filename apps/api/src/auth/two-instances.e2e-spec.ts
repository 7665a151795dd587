import { randomBytes } from 'node:crypto';
import { Controller, Get, Module } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Keypair } from '@stellar/stellar-sdk';
import { walletEvents } from '@dob/auth';
import { createChainEventCatalog } from '@dob/domain';
import { createSqlEventStore, type EventStore } from '@dob/event-store';
import { RedisRateLimiter } from '@dob/rate-limit';
import { HealthRegistry } from '@dob/runtime';
import { testDatabases, type SqlDatabase } from '@dob/sql';
import { createApiApp } from '../bootstrap';
import { ok } from '../http/envelope';
import { createApiAuth, CurrentAgent, RequireScope, type AgentPrincipal } from './index';

@RequireScope('read')
@Controller('probe')
class ProbeController {
  @Get()
  read(@CurrentAgent() agent: AgentPrincipal) {
    return ok({ keyId: agent.keyId });
  }
}
@Module({ controllers: [ProbeController] })
class ProbeModule {}

/** Two API instances (two Nest apps) over one PostgreSQL and the real Redis, as in production. */
describe('two API instances share key budgets (Redis) and key state (PostgreSQL)', () => {
  const postgres = testDatabases().find((f) => f.name === 'postgres')!;
  const prefix = `test:rl:${randomBytes(6).toString('hex')}:`;
  let db: SqlDatabase;
  let events: EventStore;
  const instances: { app: NestFastifyApplication; close(): Promise<void> }[] = [];
  let keys: Awaited<ReturnType<typeof createApiAuth>>['keys'];

  beforeAll(async () => {
    db = await postgres.create();
    events = await createSqlEventStore(db, { catalog: createChainEventCatalog(walletEvents) });
    for (let i = 0; i < 2; i++) {
      const auth = await createApiAuth({
        db,
        events,
        rateLimiter: new RedisRateLimiter({ url: process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379', prefix }),
        jwt: { secret: 'shared-secret-of-both-instances' },
      });
      keys = auth.keys;
      const app = await createApiApp({ health: new HealthRegistry(), auth }, { logger: false, modules: [ProbeModule] });
      await app.init();
      await app.getHttpAdapter().getInstance().ready();
      instances.push({ app, close: async () => (await app.close(), await auth.close()) });
    }
  });
  afterAll(async () => {
    for (const i of instances) await i.close();
    await events.close();
    await db.close();
  });

  const probe = (i: number, key: string) => instances[i]!.app.inject({ method: 'GET', url: '/api/agent/probe', headers: { 'x-api-key': key } });

  it('admits rpm + 10 in total across both instances, then both refuse', async () => {
    const { key } = await keys.createKey(Keypair.random().publicKey(), { label: 'shared', scopes: ['read'], origin: 'key_management' });
    const results = await Promise.all(Array.from({ length: 80 }, (_, i) => probe(i % 2, key)));
    const admitted = results.filter((r) => r.statusCode === 200);
    expect(admitted).toHaveLength(70);
    expect(results.filter((r) => r.statusCode === 429)).toHaveLength(10);
    expect(new Set(admitted.map((r) => r.headers['x-ratelimit-remaining'])).size).toBe(70); // one shared counter: 69 … 0
    for (const i of [0, 1]) {
      const r = await probe(i, key);
      expect(r.statusCode).toBe(429);
      expect(Number(r.headers['retry-after'])).toBeGreaterThan(0);
    }
  });

  it('a key revoked or rotated through one instance (HTTP) is refused by the other on its next request', async () => {
    const kp = Keypair.random();
    const wallet = kp.publicKey();
    const a = await keys.createKey(wallet, { label: 'a', scopes: ['read'], origin: 'key_management' });
    const b = await keys.createKey(wallet, { label: 'b', scopes: ['read'], origin: 'key_management' });
    expect((await probe(1, a.key)).statusCode).toBe(200);
    expect((await probe(1, b.key)).statusCode).toBe(200);
    const zero = instances[0]!.app;
    const n = (await zero.inject({ method: 'POST', url: '/api/agent/auth/nonce', payload: { wallet_address: wallet } })).json().data;
    const signature = Buffer.from(kp.signMessage(n.message)).toString('hex');
    const t = await zero.inject({ method: 'POST', url: '/api/agent/auth/token', payload: { wallet, signature } });
    const authorization = `Bearer ${t.json().data.token}`;
    expect((await zero.inject({ method: 'DELETE', url: `/api/agent/auth/keys/${a.record.keyId}`, headers: { authorization } })).statusCode).toBe(200);
    expect((await probe(1, a.key)).json().error.code).toBe('INVALID_API_KEY');
    const rotated = await zero.inject({ method: 'POST', url: `/api/agent/auth/keys/${b.record.keyId}/rotate`, headers: { authorization } });
    expect((await probe(1, b.key)).json().error.code).toBe('INVALID_API_KEY');
    expect((await probe(1, rotated.json().data.key)).statusCode).toBe(200);
  });
});
