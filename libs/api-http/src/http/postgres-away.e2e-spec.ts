import { generateApiKey } from '@dob/auth';
import { createPostgresDatabase } from '@dob/sql';
import { TEST_POSTGRES_URL, testSchemaName } from '../../../sql/src/testing/test-databases';
import { TcpProxy } from '../../../../test/faults/tcp-proxy';
import { startFullApi, type FullApi } from '../testing/full-api';

/**
 * The API over PostgreSQL that goes away (issue 31: every database-backed route answered 500 INTERNAL_ERROR for the
 * whole outage). Through HTTP: the spec's envelope with 503 and Retry-After within 2 s — from the request gate (the
 * key lookup) and from a route — and answers again once the server is back. A proxy stands in for the shared server.
 */
describe('API requests while PostgreSQL is away', () => {
  let proxy: TcpProxy;
  let api: FullApi;
  beforeAll(async () => {
    const target = new URL(TEST_POSTGRES_URL);
    proxy = await TcpProxy.start({ host: target.hostname, port: Number(target.port || 5432) });
    const url = new URL(TEST_POSTGRES_URL);
    url.host = `127.0.0.1:${proxy.port}`;
    const db = await createPostgresDatabase({ connectionString: url.toString(), schema: testSchemaName() });
    api = await startFullApi({ db });
  });
  afterAll(async () => {
    await proxy.restore();
    await api.close();
    await proxy.close();
  });

  const get = async (path: string, key: string) => {
    const started = Date.now();
    const r = await fetch(`${api.base}${path}`, { headers: { 'x-api-key': key }, signal: AbortSignal.timeout(10_000) });
    return {
      status: r.status,
      retryAfter: r.headers.get('retry-after'),
      body: (await r.json()) as { success?: boolean; error?: { code?: string; details?: unknown } },
      ms: Date.now() - started,
    };
  };

  const expectUnavailable = (r: Awaited<ReturnType<typeof get>>) => {
    expect(r).toMatchObject({
      status: 503,
      retryAfter: '2',
      body: { success: false, error: { code: 'SERVICE_UNAVAILABLE', details: { dependency: 'postgresql' } } },
    });
    expect(r.ms).toBeLessThan(2000);
  };

  for (const [fault, inject] of [
    ['refused', (p: TcpProxy) => p.cut()],
    ['silent', (p: TcpProxy) => p.blackhole()],
  ] as const) {
    it(`${fault}: 503 + Retry-After within 2 s from the gate and from a route, then answers again`, async () => {
      expect((await get('/api/agent/pools', api.key)).status).toBe(200);
      await inject(proxy);
      // A key not seen before needs the key index; a route needs the read models (the known key may be cached).
      expectUnavailable(await get('/api/agent/pools', generateApiKey().key));
      const route = await get('/api/agent/pools?page=2', api.key);
      expectUnavailable(route);
      await proxy.restore();
      const deadline = Date.now() + 15_000;
      let back = await get('/api/agent/pools', api.key);
      while (back.status !== 200 && Date.now() < deadline) back = await get('/api/agent/pools', api.key);
      expect(back.status).toBe(200);
    });
  }
});
