import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { Controller, Get, Module } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Keypair } from '@stellar/stellar-sdk';
import { walletEvents } from '@dob/auth';
import { createChainEventCatalog } from '@dob/domain';
import { createSqlEventStore, type EventStore } from '@dob/event-store';
import { RedisRateLimiter } from '@dob/rate-limit';
import { HealthRegistry } from '@dob/runtime';
import { createPostgresDatabase, type SqlDatabase } from '@dob/sql';
import { testDatabases, TEST_POSTGRES_URL, testSchemaName } from '../../../sql/src/testing/test-databases';
import { createApiApp } from '../bootstrap';
import { ok } from '../http/envelope';
import { createApiAuth, CurrentAgent, RequireScope, type AgentPrincipal } from '../access';

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

/**
 * Two API processes (testing/probe-api.process.ts), each with its own key cache (SharedKeyCache: a lease on the key epoch in
 * PostgreSQL). B has the key in memory when A revokes or rotates it; B's very next request must be refused.
 */
describe('two API processes: a key revoked or rotated on A is refused by B on its very next request', () => {
  const schema = testSchemaName();
  const prefix = `test:rl:${randomBytes(6).toString('hex')}:`;
  const processes: ChildProcess[] = [];
  const urls: string[] = [];

  const start = (): Promise<string> =>
    new Promise((resolve, reject) => {
      const child = spawn(process.execPath, ['-r', join(__dirname, '../../../../scripts/register.js'), join(__dirname, '../testing/probe-api.process.ts')], {
        env: { ...process.env, PROBE_PG_SCHEMA: schema, PROBE_RL_PREFIX: prefix },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      processes.push(child);
      let out = '';
      child.stdout!.on('data', (d: Buffer) => {
        out += d.toString();
        const m = /listening (\d+)/.exec(out);
        if (m) resolve(`http://127.0.0.1:${m[1]}/api/agent`);
      });
      child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
      child.once('exit', (code) => reject(new Error(`probe process exited ${code}: ${out}`)));
    });

  beforeAll(async () => {
    // Create the schema and its tables once, so the two processes do not race their migrations.
    const db = await createPostgresDatabase({ connectionString: TEST_POSTGRES_URL, schema });
    const events = await createSqlEventStore(db, { catalog: createChainEventCatalog(walletEvents) });
    await createApiAuth({ db, events, jwt: { secret: 'unused' } }).then((a) => a.close());
    await events.close();
    await db.close();
    urls.push(await start(), await start());
  }, 60_000);
  afterAll(async () => {
    await Promise.all(processes.map((p) => new Promise((r) => (p.exitCode !== null ? r(null) : (p.once('exit', r), p.kill('SIGTERM'))))));
  });

  const call = async (i: number, method: string, path: string, init: { key?: string; token?: string; body?: object } = {}) => {
    const headers: Record<string, string> = {};
    if (init.key) headers['x-api-key'] = init.key;
    if (init.token) headers.authorization = `Bearer ${init.token}`;
    if (init.body) headers['content-type'] = 'application/json';
    const r = await fetch(urls[i] + path, { method, headers, body: init.body ? JSON.stringify(init.body) : undefined });
    return {
      status: r.status,
      body: (await r.json()) as { data: Record<string, unknown> & { key: string; key_id: string; pid: number }; error?: { code: string } },
    };
  };

  it('revoke on A, then B refuses; rotate on A, then B refuses the old value and admits the new one', async () => {
    const kp = Keypair.random();
    const wallet = kp.publicKey();
    const nonce = (await call(0, 'POST', '/auth/nonce', { body: { wallet_address: wallet } })).body.data;
    const signature = Buffer.from(kp.signMessage(nonce.message as string)).toString('hex');
    const token = (await call(0, 'POST', '/auth/token', { body: { wallet, signature } })).body.data.token as string;
    const create = async (label: string) => (await call(0, 'POST', '/auth/keys', { token, body: { label, scopes: ['read'] } })).body.data;
    const a = await create('revoked');
    const b = await create('rotated');
    // Warm B's cache with both keys (and check the answers come from two processes).
    const pids = new Set<number>();
    for (let n = 0; n < 3; n++) {
      for (const k of [a, b]) {
        for (const i of [0, 1]) {
          const r = await call(i, 'GET', '/probe', { key: k.key });
          expect(r.status).toBe(200);
          pids.add(r.body.data.pid);
        }
      }
    }
    expect(pids.size).toBe(2);

    expect((await call(0, 'DELETE', `/auth/keys/${a.key_id}`, { token })).status).toBe(200);
    const afterRevoke = await call(1, 'GET', '/probe', { key: a.key });
    expect([afterRevoke.status, afterRevoke.body.error?.code]).toEqual([401, 'INVALID_API_KEY']);

    const rotated = await call(0, 'POST', `/auth/keys/${b.key_id}/rotate`, { token });
    expect(rotated.status).toBe(200);
    const old = await call(1, 'GET', '/probe', { key: b.key });
    expect([old.status, old.body.error?.code]).toEqual([401, 'INVALID_API_KEY']);
    expect((await call(1, 'GET', '/probe', { key: rotated.body.data.key })).status).toBe(200);
  });
});
