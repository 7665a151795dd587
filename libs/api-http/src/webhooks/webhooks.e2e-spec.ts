import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Keypair } from '@stellar/stellar-sdk';
import { walletEvents } from '@dob/auth';
import { createChainEventCatalog } from '@dob/domain';
import { createSqlEventStore, type EventStore } from '@dob/event-store';
import { HealthRegistry } from '@dob/runtime';
import { type SqlDatabase } from '@dob/sql';
import { testDatabases } from '../../../sql/src/testing/test-databases';
import { createWebhookComponents, verifySvcSignature, type WebhookComponents } from '@dob/webhooks';
import { createApiApp } from '../bootstrap';
import { createApiAuth } from '../access';
import { startTestReceiver, type TestReceiver } from '../../../../libs/webhooks/src/testing/https-receiver';
import { testCaller } from '../../../../libs/webhooks/src/testing/test-caller';

describe('webhook management API (e2e, PostgreSQL, local HTTPS receiver)', () => {
  const postgres = testDatabases().find((f) => f.name === 'postgres')!;
  let db: SqlDatabase;
  let events: EventStore;
  let auth: Awaited<ReturnType<typeof createApiAuth>>;
  let wh: WebhookComponents;
  let app: NestFastifyApplication;
  let receiver: TestReceiver;
  let ip = 0;

  beforeAll(async () => {
    receiver = await startTestReceiver();
    db = await postgres.create();
    events = await createSqlEventStore(db, { catalog: createChainEventCatalog(walletEvents) });
    auth = await createApiAuth({ db, events, jwt: { secret: 'test-secret-0123456789abcdef' } });
    wh = await createWebhookComponents({ db, secretKey: Buffer.alloc(32, 9), allowList: { hosts: ['localhost'] }, ca: receiver.cert });
    app = await createApiApp({ health: new HealthRegistry(), auth, webhooks: wh.service }, { logger: false });
    await app.init();
    await app.getHttpAdapter().getInstance().ready();
  });
  afterAll(async () => {
    await app.close();
    await auth.close();
    await events.close();
    await db.close();
    await receiver.close();
  });

  async function agent(scopes = ['read']) {
    const remoteAddress = `10.1.0.${++ip}`;
    const kp = Keypair.random();
    const call0 = (method: 'GET' | 'POST', url: string, body?: unknown) =>
      app.inject({
        method,
        url: `/api/agent${url}`,
        remoteAddress,
        payload: body === undefined ? undefined : JSON.stringify(body),
        headers: body === undefined ? {} : { 'content-type': 'application/json' },
      });
    const c = (await call0('GET', `/auth/challenge/${kp.publicKey()}`)).json().data;
    const sig = Buffer.from(kp.sign(Buffer.from(c.message, 'utf8'))).toString('hex');
    const r = await call0('POST', '/auth/register', { wallet: kp.publicKey(), signature: sig, label: 'bot', scopes });
    const key: string = r.json().data.api_key.key;
    return (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, body?: unknown) =>
      app.inject({
        method,
        url: `/api/agent${url}`,
        remoteAddress,
        payload: body === undefined ? undefined : JSON.stringify(body),
        headers: { 'x-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      });
  }

  const good = () => ({ url: `${receiver.origin}/hooks`, events: ['marketplace_sale_completed', 'pool_created'], secret: 'whsec_a1b2c3d4e5f6g7h8i9j0' });

  it('registers (201, spec shape, no secret), lists with failure_count/last_triggered_at, updates, deletes', async () => {
    const call = await agent();
    const created = await call('POST', '/webhooks', good());
    expect(created.statusCode).toBe(201);
    const d = created.json().data;
    expect(created.json()).toEqual({
      success: true,
      data: { id: expect.stringMatching(/^wh_[0-9a-f]{24}$/), url: good().url, events: good().events, is_active: true, created_at: expect.any(String) },
    });
    expect(created.body).not.toContain('whsec_');

    const list = await call('GET', '/webhooks');
    expect(list.json().data).toEqual([
      {
        id: d.id,
        url: good().url,
        events: good().events,
        is_active: true,
        failure_count: 0,
        last_triggered_at: null,
        created_at: d.created_at,
        key_revoked: false,
      },
    ]);
    expect(list.body).not.toContain('whsec_');

    const upd = await call('PUT', `/webhooks/${d.id}`, { events: ['crowdfunding_failed'], is_active: false });
    expect(upd.statusCode).toBe(200);
    expect(upd.json().data).toEqual({ id: d.id, url: good().url, events: ['crowdfunding_failed'], is_active: false, updated_at: expect.any(String) });

    const del = await call('DELETE', `/webhooks/${d.id}`);
    expect(del.json()).toEqual({ success: true, data: { id: d.id, deleted: true } });
    expect((await call('GET', '/webhooks')).json().data).toEqual([]);
    expect((await call('DELETE', `/webhooks/${d.id}`)).statusCode).toBe(404);
  });

  it.each([
    [{ url: 'http://localhost/hooks' }, /HTTPS/],
    [{ url: 'https://127.0.0.1/hooks' }, /^url host is not a public address$/],
    [{ url: 'https://10.0.0.8/hooks' }, /^url host is not a public address$/],
    [{ url: 'https://[::ffff:127.0.0.1]/hooks' }, /^url host is not a public address$/],
    [{ url: 'https://169.254.169.254/latest' }, /^url host is not a public address$/],
    [{ events: ['pool_created', 'moon_landing'] }, /unknown event "moon_landing"/],
    [{ events: [] }, /non-empty/],
    [{ events: ['test'] }, /unknown event "test"/],
    [{ secret: 'too-short' }, /at least 16/],
    [{ secret: undefined }, /secret/],
    [{ extra: 1 }, /extra/],
  ])('refuses %j with a 400 VALIDATION_ERROR naming it', async (patch, message) => {
    const call = await agent();
    const r = await call('POST', '/webhooks', { ...good(), ...patch });
    expect(r.statusCode).toBe(400);
    expect(r.json()).toMatchObject({ success: false, error: { code: 'VALIDATION_ERROR', message: expect.stringMatching(message) } });
  });

  it('refuses a host that resolves to loopback when it is not allow-listed (real DNS), without echoing what it resolved to', async () => {
    const strict = await createWebhookComponents({ db, secretKey: Buffer.alloc(32, 9) });
    for (const url of ['https://localhost:8443/x', 'https://10.1.2.3/x', 'https://no-such-host.invalid/x']) {
      const refusal = await strict.service.register(testCaller('ak_strict'), { ...good(), url }).catch((e: unknown) => e);
      expect(refusal).toMatchObject({ code: 'VALIDATION_ERROR', message: 'url host is not a public address', details: { field: 'url' } });
    }
  });

  it('allows 5 webhooks per key even under 12 concurrent requests; the sixth is a 400 naming the limit', async () => {
    const call = await agent();
    const rs = await Promise.all(Array.from({ length: 12 }, () => call('POST', '/webhooks', good())));
    expect(rs.filter((r) => r.statusCode === 201)).toHaveLength(5);
    const refused = rs.filter((r) => r.statusCode !== 201);
    expect(refused).toHaveLength(7);
    for (const r of refused) expect(r.json().error).toMatchObject({ code: 'VALIDATION_ERROR', message: expect.stringMatching(/at most 5/) });
    expect((await call('GET', '/webhooks')).json().data).toHaveLength(5);
  });

  it("hides other keys' webhooks: foreign ids are 404 NOT_FOUND on every route", async () => {
    const owner = await agent();
    const stranger = await agent();
    const id = (await owner('POST', '/webhooks', good())).json().data.id;
    for (const [method, url, body] of [
      ['PUT', `/webhooks/${id}`, { is_active: false }],
      ['DELETE', `/webhooks/${id}`, undefined],
      ['POST', `/webhooks/${id}/test`, undefined],
      ['GET', `/webhooks/${id}/deliveries`, undefined],
      ['POST', `/webhooks/${id}/deliveries/dlv_x/redeliver`, undefined],
      ['PUT', `/webhooks/wh_unknown`, { is_active: true }],
    ] as const) {
      const r = await stranger(method, url, body);
      expect(r.statusCode).toBe(404);
      expect(r.json()).toEqual({ success: false, error: { code: 'NOT_FOUND', message: 'webhook not found', request_id: expect.any(String) } });
    }
    expect((await stranger('GET', '/webhooks')).json().data).toEqual([]);
    expect((await owner('GET', '/webhooks')).json().data[0]).toMatchObject({ id, is_active: true });
  });

  it('sends a signed test event to the HTTPS receiver and reports the outcome', async () => {
    const call = await agent();
    const id = (await call('POST', '/webhooks', good())).json().data.id;
    receiver.requests.length = 0;
    receiver.respond = () => 204;
    const r = await call('POST', `/webhooks/${id}/test`);
    expect(r.statusCode).toBe(200);
    expect(r.json().data).toEqual({
      webhook_id: id,
      test_event_sent: true,
      delivery_status: 'success',
      response_code: 204,
      response_time_ms: expect.any(Number),
    });
    expect(receiver.requests).toHaveLength(1);
    const got = receiver.requests[0];
    const body = JSON.parse(got.raw.toString('utf8'));
    expect(body).toEqual({ event: 'test', timestamp: expect.any(String), webhook_id: id, data: { message: expect.any(String) } });
    expect(got.headers['x-svc-event']).toBe('test');
    expect(got.headers['x-svc-delivery']).toMatch(/^dlv_/);
    expect(verifySvcSignature(good().secret, got.raw, got.headers['x-svc-signature'] as string)).toBe(true);

    receiver.respond = () => 500;
    const failed = await call('POST', `/webhooks/${id}/test`);
    expect(failed.json().data).toMatchObject({ test_event_sent: true, delivery_status: 'failed', response_code: 500 });
    receiver.respond = () => 200;
    // The test endpoint is not a delivery: it leaves failure_count alone.
    expect((await call('GET', '/webhooks')).json().data[0].failure_count).toBe(0);
  });

  it('pages the delivery log (empty for a new webhook) and validates paging', async () => {
    const call = await agent();
    const id = (await call('POST', '/webhooks', good())).json().data.id;
    const r = await call('GET', `/webhooks/${id}/deliveries?page=1&limit=10`);
    expect(r.json()).toEqual({ success: true, data: [], meta: { page: 1, limit: 10, total: 0 } });
    expect((await call('GET', `/webhooks/${id}/deliveries?limit=101`)).statusCode).toBe(400);
  });

  it('needs an API key', async () => {
    const r = await app.inject({ method: 'GET', url: '/api/agent/webhooks', remoteAddress: '10.9.9.9' });
    expect(r.statusCode).toBe(401);
    expect(r.json().error.code).toBe('MISSING_API_KEY');
  });
});
