import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { walletEvents } from '@dob/auth';
import { createReadQueries, createReadResultCache, type ReadResultCache } from '@dob/read-models';
import { READ_MODELS_CHANGED_CHANNEL } from '@dob/projections';
import { HealthRegistry } from '@dob/runtime';
import { createPgliteDatabase, type SqlDatabase } from '@dob/sql';
import { accountAddr } from '../../../../libs/read-models/src/testing/chain-scenario';
import { startReadModels, type ReadModelHarness } from '../../../../libs/read-models/src/testing/read-model-harness';
import { createApiAuth } from '../access';
import { createApiApp } from '../bootstrap';

/** The API over PGlite with the read-result cache's change count given, and a count of pool-list queries served. */
describe('read response cache: GET /pools and /marketplace/listings answered from bytes until the read models change', () => {
  let db: SqlDatabase;
  let models: ReadModelHarness;
  let cache: ReadResultCache;
  let auth: Awaited<ReturnType<typeof createApiAuth>>;
  let app: NestFastifyApplication;
  let base: string;
  let readKey: string;
  let tradeKey: string;
  let listCalls = 0;

  beforeAll(async () => {
    db = await createPgliteDatabase();
    models = await startReadModels(db, walletEvents);
    auth = await createApiAuth({ db, events: models.store, jwt: { secret: 'response-cache-test-secret-0123456789' }, ipRateLimitRpm: 100_000 });
    cache = await createReadResultCache(db);
    const queries = createReadQueries({ db: cache.db });
    const list = queries.pools.list.bind(queries.pools);
    queries.pools.list = (q) => (listCalls++, list(q));
    app = await createApiApp({ health: new HealthRegistry(), auth, read: { queries, changes: () => cache.generation } }, { logger: false });
    await app.listen(0, '127.0.0.1');
    base = `http://127.0.0.1:${(app.getHttpServer().address() as { port: number }).port}/api/agent`;
    readKey = (await auth.keys.createKey(accountAddr('cache-reader'), { label: 'r', scopes: ['read'], origin: 'register' })).key;
    tradeKey = (await auth.keys.createKey(accountAddr('cache-trader'), { label: 't', scopes: ['trade'], origin: 'register' })).key;
  });

  afterAll(async () => {
    await app.close();
    await auth.close();
    await cache.close();
    await models.close();
    await db.close();
  });

  const get = async (path: string, key = readKey) => {
    const r = await fetch(`${base}${path}`, { headers: { 'x-api-key': key } });
    // Every header but those that differ per request (request id, date, the limiter's remaining budget and reset).
    const headers = Object.fromEntries([...r.headers].filter(([h]) => !['x-request-id', 'date', 'x-ratelimit-remaining', 'x-ratelimit-reset'].includes(h)));
    return { status: r.status, headers, body: await r.text() };
  };

  it('a repeated URL is answered with the same bytes and headers without asking the query service again', async () => {
    const before = listCalls;
    const first = await get('/pools?limit=5&sort=apr_desc');
    const second = await get('/pools?limit=5&sort=apr_desc');
    expect(first.status).toBe(200);
    expect(second).toEqual(first);
    expect(listCalls - before).toBe(1);
    await get('/pools?limit=6&sort=apr_desc'); // another URL, another entry
    expect(listCalls - before).toBe(2);
  });

  it('a change of the read models (their NOTIFY) makes the next request ask the query service again', async () => {
    await get('/pools?limit=7');
    const before = listCalls;
    const g = cache.generation;
    await db.query(`SELECT pg_notify('${READ_MODELS_CHANGED_CHANNEL}', '')`);
    for (let i = 0; i < 100 && cache.generation === g; i++) await new Promise((r) => setTimeout(r, 10));
    expect(cache.generation).not.toBe(g);
    await get('/pools?limit=7');
    expect(listCalls - before).toBe(1);
  });

  it('a cached URL still refuses a key without the read scope, and a missing key, as Nest would', async () => {
    expect((await get('/pools?limit=5&sort=apr_desc')).status).toBe(200);
    const refused = await get('/pools?limit=5&sort=apr_desc', tradeKey);
    expect(refused.status).toBe(403);
    expect(JSON.parse(refused.body).error.code).toBe('INSUFFICIENT_SCOPE');
    const anonymous = await fetch(`${base}/pools?limit=5&sort=apr_desc`);
    expect(anonymous.status).toBe(401);
  });

  it("the gate's 429 stands for a cached URL: the refusal, not the cached answer", async () => {
    const limited = (await auth.keys.createKey(accountAddr('cache-limited'), { label: 'l', scopes: ['read'], origin: 'register' })).key;
    const answers = [];
    // 60 per minute: the limiter admits at most rpm + 10 in any 60-s window (docs/auth.md), so 100 go past it.
    for (let i = 0; i < 100; i++) answers.push(await get('/pools?limit=5&sort=apr_desc', limited));
    expect(answers[0]!.status).toBe(200);
    expect(answers[0]!.headers['x-ratelimit-limit']).toBe('60');
    const refused = answers.filter((a) => a.status !== 200);
    expect(refused.length).toBeGreaterThan(0);
    for (const r of refused) expect([r.status, JSON.parse(r.body).error.code]).toEqual([429, 'RATE_LIMIT_EXCEEDED']);
  });

  it('refusals are never stored: a bad query is the same 400 each time, from the validation pipe', async () => {
    const before = listCalls;
    const a = await get('/pools?limit=1000');
    const b = await get('/pools?limit=1000');
    expect(a.status).toBe(400);
    expect(JSON.parse(b.body).error).toMatchObject({ code: 'VALIDATION_ERROR', message: JSON.parse(a.body).error.message });
    expect(listCalls).toBe(before);
  });
});
