import { Controller, Get, Module, Post } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Keypair } from '@stellar/stellar-sdk';
import { walletEvents } from '@dob/auth';
import { createChainEventCatalog } from '@dob/domain';
import { createSqlEventStore, type EventStore } from '@dob/event-store';
import { InProcessRateLimiter, maxAdmissionsPerWindow } from '@dob/rate-limit';
import { HealthRegistry } from '@dob/runtime';
import { type SqlDatabase } from '@dob/sql';
import { testDatabases } from '../../../sql/src/testing/test-databases';
import { createApiApp } from '../bootstrap';
import { ok } from '../http/envelope';
import { createApiAuth, CurrentAgent, RequireScope, type AgentPrincipal } from '../access';

/** A stand-in agent endpoint, guarded exactly as the feature controllers are. */
@RequireScope('read')
@Controller('probe')
class ProbeController {
  @Get()
  read(@CurrentAgent() agent: AgentPrincipal) {
    return ok(agent);
  }

  @RequireScope('trade')
  @Post('trade')
  trade(@CurrentAgent() agent: AgentPrincipal) {
    return ok({ wallet: agent.wallet });
  }
}
@Module({ controllers: [ProbeController] })
class ProbeModule {}

type Scheme = 'sep53' | 'raw';
const sign = (kp: Keypair, message: string, scheme: Scheme) =>
  Buffer.from(scheme === 'sep53' ? kp.signMessage(message) : kp.sign(Buffer.from(message, 'utf8'))).toString('hex');
const jwtClaims = (token: string) => JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8'));

describe('wallet auth, API keys, scopes and rate limits (e2e, PostgreSQL)', () => {
  const postgres = testDatabases().find((f) => f.name === 'postgres')!;
  let db: SqlDatabase;
  let events: EventStore;
  let auth: Awaited<ReturnType<typeof createApiAuth>>;
  let app: NestFastifyApplication;
  let now = Date.parse('2026-03-10T12:00:00Z');
  let ipCounter = 0;

  beforeAll(async () => {
    db = await postgres.create();
    events = await createSqlEventStore(db, { catalog: createChainEventCatalog(walletEvents) });
    auth = await createApiAuth({
      db,
      events,
      rateLimiter: new InProcessRateLimiter(() => now),
      clock: () => now,
      jwt: { secret: 'test-secret-0123456789abcdef' },
      ipRateLimitRpm: 60,
    });
    app = await createApiApp({ health: new HealthRegistry(), auth }, { logger: false, modules: [ProbeModule] });
    await app.init();
    await app.getHttpAdapter().getInstance().ready();
  });
  afterAll(async () => {
    await app.close();
    await auth.close();
    await events.close();
    await db.close();
  });

  /** Every test speaks from its own IP so per-IP budgets of one test do not leak into another. */
  function client() {
    const remoteAddress = `10.0.0.${++ipCounter}`;
    return (method: 'GET' | 'POST' | 'DELETE', url: string, opts: { body?: unknown; key?: string; jwt?: string } = {}) =>
      app.inject({
        method,
        url: `/api/agent${url}`,
        remoteAddress,
        payload: opts.body === undefined ? undefined : JSON.stringify(opts.body),
        headers: {
          ...(opts.body === undefined ? {} : { 'content-type': 'application/json' }),
          ...(opts.key === undefined ? {} : { 'x-api-key': opts.key }),
          ...(opts.jwt === undefined ? {} : { authorization: `Bearer ${opts.jwt}` }),
        },
      });
  }

  async function register(call: ReturnType<typeof client>, kp: Keypair, scheme: Scheme, scopes = ['read']) {
    const c = (await call('GET', `/auth/challenge/${kp.publicKey()}`)).json().data;
    const r = await call('POST', '/auth/register', { body: { wallet: kp.publicKey(), signature: sign(kp, c.message, scheme), label: 'bot', scopes } });
    expect(r.statusCode).toBe(201);
    return r.json() as { data: { api_key: { key: string; key_id: string } } };
  }

  async function jwtFor(call: ReturnType<typeof client>, kp: Keypair): Promise<string> {
    const n = (await call('POST', '/auth/nonce', { body: { wallet_address: kp.publicKey() } })).json().data;
    const r = await call('POST', '/auth/token', { body: { wallet: kp.publicKey(), signature: sign(kp, n.message, 'raw') } });
    expect(r.statusCode).toBe(200);
    return r.json().data.token;
  }

  it('issues challenges only for G… wallets, in the documented shape (docs/decisions.md#d6)', async () => {
    const call = client();
    const bad = await call('GET', '/auth/challenge/GNOTAWALLET');
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ success: false, error: { code: 'VALIDATION_ERROR' } });
    const kp = Keypair.random();
    const r = await call('GET', `/auth/challenge/${kp.publicKey()}`);
    expect(r.statusCode).toBe(200);
    const d = r.json().data;
    expect(d).toEqual({
      wallet: kp.publicKey(),
      message: expect.stringContaining(`Address: ${kp.publicKey()}`),
      nonce: expect.stringMatching(/^[0-9a-f]{64}$/),
      issued_at: new Date(now).toISOString(),
      expires_at: new Date(now + 300_000).toISOString(),
      expires_in: 300,
    });
    expect(d.message).toContain(d.nonce);
    expect(d.message).toContain(`Timestamp: ${now}`);
  });

  it('registers with a SEP-53 or a raw signature (201, Dob shape) and the key opens read endpoints', async () => {
    const call = client();
    const kp = Keypair.random();
    const body = await register(call, kp, 'sep53', ['read', 'trade']);
    expect(body).toEqual({
      success: true,
      data: {
        wallet: kp.publicKey(),
        api_key: {
          key_id: expect.stringMatching(/^ak_[0-9A-Z]{26}$/),
          key: expect.stringMatching(/^svc_ak_[0-9A-Za-z]{39}$/),
          key_prefix: (body.data.api_key.key as string).slice(0, 11),
          label: 'bot',
          scopes: ['read', 'trade'],
          rate_limit_rpm: 60,
          created_at: new Date(now).toISOString(),
        },
      },
      message: expect.stringMatching(/cannot be retrieved again/),
    });
    const raw = await register(call, kp, 'raw');
    const probe = await call('GET', '/probe', { key: raw.data.api_key.key });
    expect(probe.statusCode).toBe(200);
    expect(probe.json().data).toEqual({ keyId: raw.data.api_key.key_id, wallet: kp.publicKey(), scopes: ['read'], rateLimitRpm: 60 });
  });

  it('refuses reused, foreign, malformed and expired challenge signatures with 401 and creates nothing', async () => {
    const call = client();
    const kp = Keypair.random();
    const other = Keypair.random();
    const reg = (signature: string, wallet = kp.publicKey()) => call('POST', '/auth/register', { body: { wallet, signature, label: 'x', scopes: ['read'] } });
    const c = (await call('GET', `/auth/challenge/${kp.publicKey()}`)).json().data;
    const sig = sign(kp, c.message, 'sep53');
    expect((await reg(sign(other, c.message, 'sep53'))).statusCode).toBe(401); // foreign signer
    expect((await reg(sig, other.publicKey())).statusCode).toBe(401); // challenge bound to its wallet
    expect((await reg('zz' + sig.slice(2))).statusCode).toBe(401); // malformed hex
    expect((await reg(sig.slice(0, 64))).statusCode).toBe(401); // truncated
    expect((await reg(sig)).statusCode).toBe(201);
    const reused = await reg(sig);
    expect(reused.statusCode).toBe(401);
    expect(reused.json()).toMatchObject({ success: false, error: { code: 'UNAUTHORIZED' } });
    const late = (await call('GET', `/auth/challenge/${kp.publicKey()}`)).json().data;
    now += 300_001;
    expect((await reg(sign(kp, late.message, 'raw'))).statusCode).toBe(401);
    expect(await auth.keys.listKeys(kp.publicKey())).toHaveLength(1);
    expect(await auth.keys.listKeys(other.publicKey())).toHaveLength(0);
    const badBody = await call('POST', '/auth/register', { body: { wallet: kp.publicKey(), signature: sig, label: 'x', scopes: ['admin'] } });
    expect(badBody.statusCode).toBe(400);
    expect(badBody.json().error.code).toBe('VALIDATION_ERROR');
  });

  it('issues a 15-minute JWT (iss, aud, sub, iat, exp, jti) for a signed nonce; key routes need it', async () => {
    const call = client();
    const kp = Keypair.random();
    const n = (await call('POST', '/auth/nonce', { body: { wallet_address: kp.publicKey() } })).json();
    expect(n.data).toEqual({ nonce: expect.stringMatching(/^[0-9a-f]{64}$/), message: expect.any(String), expires_at: new Date(now + 300_000).toISOString() });
    const r = await call('POST', '/auth/token', { body: { wallet: kp.publicKey(), signature: sign(kp, n.data.message, 'sep53') } });
    expect(r.statusCode).toBe(200);
    const { token, token_type, expires_at } = r.json().data;
    expect(token_type).toBe('Bearer');
    const claims = jwtClaims(token);
    expect(claims).toEqual({
      iss: 'dob-agent-api',
      aud: 'dob-agent-api/key-management',
      sub: kp.publicKey(),
      iat: expect.any(Number),
      exp: expect.any(Number),
      jti: expect.stringMatching(/^[0-9a-f-]{36}$/),
    });
    expect(claims.exp - claims.iat).toBe(900);
    expect(expires_at).toBe(new Date(claims.exp * 1000).toISOString());
    expect((await call('GET', '/auth/keys', { jwt: token })).statusCode).toBe(200);
    for (const jwt of [undefined, 'garbage', token.slice(0, -3) + 'abc']) {
      const denied = await call('GET', '/auth/keys', { jwt });
      expect(denied.statusCode).toBe(401);
      expect(denied.json()).toMatchObject({ success: false, error: { code: 'UNAUTHORIZED' } });
    }
    const reuse = await call('POST', '/auth/token', { body: { wallet: kp.publicKey(), signature: sign(kp, n.data.message, 'sep53') } });
    expect(reuse.statusCode).toBe(401);
  });

  it('manages keys: up to 10 active, masked list, rotate and revoke take effect at once', async () => {
    const call = client();
    const kp = Keypair.random();
    const jwt = await jwtFor(call, kp);
    const created: { key_id: string; key: string }[] = [];
    for (let i = 0; i < 10; i++) {
      const r = await call('POST', '/auth/keys', { jwt, body: { label: `k${i}`, scopes: i % 2 ? ['read', 'trade'] : ['read'] } });
      expect(r.statusCode).toBe(201);
      expect(Object.keys(r.json().data).sort()).toEqual(['created_at', 'key', 'key_id', 'label', 'scopes']);
      created.push(r.json().data);
    }
    const eleventh = await call('POST', '/auth/keys', { jwt, body: { label: 'k10', scopes: ['read'] } });
    expect(eleventh.statusCode).toBe(400);
    expect(eleventh.json().error).toMatchObject({ code: 'VALIDATION_ERROR', message: expect.stringMatching(/revoke a key first/) });
    const tooLong = await call('POST', '/auth/keys', { jwt, body: { label: 'x'.repeat(65), scopes: ['read'] } });
    expect(tooLong.json().error.code).toBe('VALIDATION_ERROR');

    await call('GET', '/probe', { key: created[0]!.key });
    await auth.authenticator.flush();
    const list = (await call('GET', '/auth/keys', { jwt })).json().data as Record<string, unknown>[];
    expect(list).toHaveLength(10);
    for (const k of list) {
      expect(Object.keys(k).sort()).toEqual(['created_at', 'key_id', 'key_masked', 'label', 'last_used_at', 'scopes']);
      const full = created.find((c) => c.key_id === k.key_id)!.key;
      expect(k.key_masked).toBe(`${full.slice(0, 11)}…${full.slice(-4)}`);
    }
    expect(list.find((k) => k.key_id === created[0]!.key_id)!.last_used_at).toBe(new Date(now).toISOString());

    const target = created[1]!;
    const rotated = await call('POST', `/auth/keys/${target.key_id}/rotate`, { jwt });
    expect(rotated.statusCode).toBe(200);
    expect(rotated.json().data).toEqual({
      key_id: target.key_id,
      key: expect.stringMatching(/^svc_ak_/),
      label: 'k1',
      scopes: ['read', 'trade'],
      rotated_at: new Date(now).toISOString(),
    });
    const old = await call('GET', '/probe', { key: target.key });
    expect(old.statusCode).toBe(401);
    expect(old.json().error.code).toBe('INVALID_API_KEY');
    const fresh = rotated.json().data.key as string;
    expect((await call('POST', '/probe/trade', { key: fresh })).statusCode).toBe(201);

    const revoked = await call('DELETE', `/auth/keys/${target.key_id}`, { jwt });
    expect(revoked.json()).toEqual({ success: true, data: { key_id: target.key_id, revoked: true, revoked_at: new Date(now).toISOString() } });
    expect((await call('GET', '/probe', { key: fresh })).json().error.code).toBe('INVALID_API_KEY');
    expect((await call('POST', '/auth/keys', { jwt, body: { label: 'again', scopes: ['read'] } })).statusCode).toBe(201);

    expect((await call('POST', '/auth/keys/ak_00000000000000000000000000/rotate', { jwt })).json().error.code).toBe('NOT_FOUND');
    const stranger = await jwtFor(call, Keypair.random());
    const foreign = await call('DELETE', `/auth/keys/${created[2]!.key_id}`, { jwt: stranger });
    expect(foreign.statusCode).toBe(404);
    expect((await call('GET', '/probe', { key: created[2]!.key })).statusCode).toBe(200);
  });

  it('20 concurrent creates on a wallet holding 5 keys end with exactly 10 active', async () => {
    const call = client();
    const kp = Keypair.random();
    const jwt = await jwtFor(call, kp);
    for (let i = 0; i < 5; i++) await call('POST', '/auth/keys', { jwt, body: { label: `k${i}`, scopes: ['read'] } });
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => call('POST', '/auth/keys', { jwt, body: { label: `c${i}`, scopes: ['read'] } })));
    const codes = results.map((r) => r.statusCode).sort();
    expect(codes).toEqual([...Array(5).fill(201), ...Array(15).fill(400)]);
    expect((await call('GET', '/auth/keys', { jwt })).json().data).toHaveLength(10);
  });

  it('answers the guard errors with the documented codes (docs/decisions.md#d7)', async () => {
    const call = client();
    const { data } = await register(call, Keypair.random(), 'sep53', ['read']);
    const missing = await call('GET', '/probe');
    expect(missing.statusCode).toBe(401);
    expect(missing.json()).toEqual({
      success: false,
      error: { code: 'MISSING_API_KEY', message: 'API key is required. Include it in the X-API-Key header.', request_id: missing.headers['x-request-id'] },
    });
    for (const key of ['svc_ak_nope', data.api_key.key.slice(0, -1) + (data.api_key.key.endsWith('a') ? 'b' : 'a'), 'svc_ak_' + 'A'.repeat(39)]) {
      const r = await call('GET', '/probe', { key });
      expect(r.statusCode).toBe(401);
      expect(r.json().error.code).toBe('INVALID_API_KEY');
    }
    const scope = await call('POST', '/probe/trade', { key: data.api_key.key });
    expect(scope.statusCode).toBe(403);
    expect(scope.json().error.code).toBe('INSUFFICIENT_SCOPE');
  });

  it('rate-limits per key: headers on success, 4xx, 404 and 429; rpm + 10 admitted, then Retry-After', async () => {
    const call = client();
    const { data } = await register(call, Keypair.random(), 'sep53', ['read']);
    const key = data.api_key.key;
    const first = await call('GET', '/probe', { key });
    expect(first.headers['x-ratelimit-limit']).toBe('60');
    expect(first.headers['x-ratelimit-remaining']).toBe('69');
    expect(first.headers['x-ratelimit-reset']).toBe(String(Math.ceil((now + 60_001) / 1000)));
    const forbidden = await call('POST', '/probe/trade', { key });
    expect(forbidden.statusCode).toBe(403);
    expect(forbidden.headers['x-ratelimit-remaining']).toBe('68');
    const unknown = await call('GET', '/nowhere', { key });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().error.code).toBe('NOT_FOUND');
    expect(unknown.headers['x-ratelimit-remaining']).toBe('67');
    let last = unknown;
    for (let i = 0; i < 67; i++) last = await call('GET', '/probe', { key });
    expect(last.statusCode).toBe(200);
    expect(last.headers['x-ratelimit-remaining']).toBe('0');
    const refused = await call('GET', '/probe', { key });
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['retry-after']).toBe('61');
    expect(refused.headers['x-ratelimit-remaining']).toBe('0');
    expect(refused.headers['x-ratelimit-limit']).toBe('60');
    expect(refused.json().error).toMatchObject({ code: 'RATE_LIMIT_EXCEEDED', message: 'Rate limit exceeded. Retry after 61 seconds.' });
    now += 61_000;
    expect((await call('GET', '/probe', { key })).statusCode).toBe(200);
  });

  it('uses the tier set by ops at once', async () => {
    const call = client();
    const { data } = await register(call, Keypair.random(), 'raw', ['read']);
    await auth.keys.setRateLimit(data.api_key.key_id, 300);
    const r = await call('GET', '/probe', { key: data.api_key.key });
    expect(r.headers['x-ratelimit-limit']).toBe('300');
    expect(r.json().data.rateLimitRpm).toBe(300);
  });

  it('limits the unauthenticated auth endpoints per IP', async () => {
    const call = client();
    const wallet = Keypair.random().publicKey();
    const statuses: number[] = [];
    for (let i = 0; i < 71; i++) statuses.push((await call('GET', `/auth/challenge/${wallet}`)).statusCode);
    expect(statuses.filter((s) => s === 200)).toHaveLength(70);
    expect(statuses[70]).toBe(429);
    expect((await client()('GET', `/auth/challenge/${wallet}`)).statusCode).toBe(200); // another IP
  });

  it('deterministic load through HTTP: no closed 60-s window admits more than rpm + 10', async () => {
    const call = client();
    const { data } = await register(call, Keypair.random(), 'raw', ['read']);
    const admitted: number[] = [];
    let seed = 7;
    const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const end = now + 150_000;
    while (now < end) {
      const burst = 1 + Math.floor(rand() * 3);
      for (let i = 0; i < burst; i++) {
        const r = await call('GET', '/probe', { key: data.api_key.key });
        if (r.statusCode === 200) admitted.push(now);
        else expect(r.statusCode).toBe(429);
      }
      now += Math.floor(rand() * 1500);
    }
    expect(maxAdmissionsPerWindow(admitted)).toBe(70);
  });
});
