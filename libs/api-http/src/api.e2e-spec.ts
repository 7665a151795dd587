import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { HealthRegistry } from '@dob/runtime';
import { createApiApp } from './bootstrap';

describe('API transport (envelope, errors, health)', () => {
  let app: NestFastifyApplication;
  let ready = false;
  let fault: { position: { commit: bigint; prepare: bigint } } | undefined;

  beforeAll(async () => {
    const health = new HealthRegistry();
    health.register('projections', async () =>
      fault ? { status: 'down', ready: false, waitingFor: 'faulted: pools', details: { pools: { fault } } } : { status: 'up', ready },
    );
    app = await createApiApp({ health }, { logger: false });
    await app.init();
    await app.getHttpAdapter().getInstance().ready();
  });

  afterAll(() => app.close());

  const inject = (opts: { method?: 'GET' | 'POST'; url: string; payload?: string; headers?: Record<string, string> }) =>
    app.inject({ method: opts.method ?? 'GET', url: opts.url, payload: opts.payload, headers: opts.headers });

  it('answers unknown routes with NOT_FOUND in the envelope', async () => {
    const r = await inject({ url: '/api/agent/nope' });
    expect(r.statusCode).toBe(404);
    expect(r.json()).toEqual({ success: false, error: { code: 'NOT_FOUND', message: 'Route not found', request_id: r.headers['x-request-id'] } });
  });

  it('answers malformed JSON with a 400 VALIDATION_ERROR, not a 5xx', async () => {
    const r = await inject({
      method: 'POST',
      url: '/api/agent/anything',
      payload: '{"a":',
      headers: { 'content-type': 'application/json' },
    });
    expect(r.statusCode).toBe(400);
    expect(r.json()).toMatchObject({ success: false, error: { code: 'VALIDATION_ERROR' } });
  });

  it('turns /health ready only when every component is ready', async () => {
    const starting = await inject({ url: '/health' });
    expect(starting.statusCode).toBe(503);
    expect(starting.json().status).toBe('starting');
    expect(starting.json().waiting_for).toEqual(['projections: not ready']);
    ready = true;
    const r = await inject({ url: '/health' });
    expect(r.statusCode).toBe(200);
    expect(r.json()).toEqual({ status: 'ready', waiting_for: [], components: { projections: { status: 'up', ready: true } } });
  });

  it("answers /health 503 naming a faulted projection, its checkpoint's bigint position as text (not a 500)", async () => {
    fault = { position: { commit: 12n, prepare: 34n } };
    const r = await inject({ url: '/health' });
    fault = undefined;
    expect(r.statusCode).toBe(503);
    expect(r.json()).toMatchObject({
      waiting_for: ['projections: down (faulted: pools)'],
      components: { projections: { details: { pools: { fault: { position: { commit: '12', prepare: '34' } } } } } },
    });
  });

  it('serves the OpenAPI document', async () => {
    const r = await inject({ url: '/api/agent/openapi.json' });
    expect(r.statusCode).toBe(200);
    expect(r.json().openapi).toMatch(/^3\./);
  });
});
