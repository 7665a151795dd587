import { request as httpRequest } from 'node:http';
import { startFullApi, type FullApi } from '../testing/full-api';
import { MAX_JSON_DEPTH, MAX_PARAM_LENGTH } from './http-hardening';

/**
 * Regression tests of issue 14's three classes of hostile input, over a real socket (a header overflow only exists
 * on one): deeply nested JSON bodies, integers out of any range, and framework-level refusals (404, 413, 414, 415,
 * 431) — each a 4xx in the envelope (docs/agent-api.md#errors) with the request's id, never a 5xx.
 */
describe('hostile input never earns a 5xx', () => {
  let api: FullApi;
  let base: string;
  let key: string;

  type Answer = { status: number; headers: Record<string, string | string[] | undefined>; body: any };
  const send = (method: string, path: string, options: { body?: string; headers?: Record<string, string> } = {}): Promise<Answer> =>
    new Promise((resolve, reject) => {
      const req = httpRequest(`${base}${path}`, { method, headers: { 'x-api-key': key, ...options.headers } }, (res) => {
        let text = '';
        res.on('data', (c) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: text ? JSON.parse(text) : null }));
      });
      req.on('error', reject);
      req.end(options.body);
    });
  const postJson = (path: string, body: string) => send('POST', path, { body, headers: { 'content-type': 'application/json' } });

  /** A 4xx in the envelope whose request_id is the X-Request-Id header. */
  const expectEnvelope = (r: Answer, status: number, code = 'VALIDATION_ERROR') => {
    expect(r.status).toBe(status);
    expect(r.body).toEqual({ success: false, error: expect.objectContaining({ code, message: expect.any(String), request_id: expect.any(String) }) });
    expect(r.headers['x-request-id']).toBe(r.body.error.request_id);
  };

  beforeAll(async () => {
    api = await startFullApi();
    ({ base, key } = api);
  });
  afterAll(async () => api?.close());

  it('refuses JSON nested deeper than the limit on every body route, and still serves afterwards', async () => {
    const deep = '['.repeat(20_000) + ']'.repeat(20_000); // ~40 KB, the body
    const bodyRoutes = [
      '/api/agent/auth/register',
      '/api/agent/auth/nonce',
      '/api/agent/auth/token',
      '/api/agent/webhooks',
      '/api/agent/marketplace/prepare-buy',
      '/api/agent/crowdfunding/submit-contribute',
    ];
    for (const path of bodyRoutes) {
      const r = await postJson(path, deep);
      expectEnvelope(r, 400);
      expect(r.body.error.message).toContain(`deeper than ${MAX_JSON_DEPTH}`);
    }
    const nestedInField = `{"wallet":"G","signature":"00","label":"x","scopes":${'['.repeat(40)}${']'.repeat(40)}}`;
    expectEnvelope(await postJson('/api/agent/auth/register', nestedInField), 400);
    expect((await send('GET', '/api/agent/pools')).status).toBe(200);
  });

  it('refuses integers outside their range with 400 naming the parameter', async () => {
    for (const path of [
      '/api/agent/pools/featured',
      '/api/agent/portfolio/holdings',
      '/api/agent/portfolio/distributions',
      '/api/agent/pools',
      '/api/agent/marketplace/listings',
    ]) {
      const r = await send('GET', `${path}?network_id=9007199254740993`);
      expectEnvelope(r, 400);
      expect(r.body.error.details.fields).toHaveProperty('network_id');
    }
    expectEnvelope(await send('GET', '/api/agent/pools?page=99999999999'), 400);
    expectEnvelope(await send('GET', '/api/agent/pools?network_id=-1'), 400);
    expectEnvelope(await postJson('/api/agent/auth/nonce', '{"wallet_address": 1e400}'), 400);
    for (const body of [
      { listing_id: 'SALE_x', amount: 9007199254740993, network_id: 9 },
      { listing_id: 'SALE_x', network_id: 2 ** 31 },
      { listing_id: 'SALE_x', amount: 0, network_id: 9 },
    ]) {
      expectEnvelope(await postJson('/api/agent/marketplace/prepare-buy', JSON.stringify(body)), 400);
    }
  });

  it('refuses NUL characters in query, path and body strings (PostgreSQL text cannot hold them)', async () => {
    expectEnvelope(await send('GET', '/api/agent/marketplace/listings?payment_token=US%00DC&network_id=9'), 400);
    expectEnvelope(await send('GET', '/api/agent/pools?search=a%00b'), 400);
    expectEnvelope(await send('GET', '/api/agent/auth/challenge/G%00A'), 400);
    expectEnvelope(await postJson('/api/agent/auth/nonce', JSON.stringify({ wallet_address: 'G\u0000A' })), 400);
    expectEnvelope(await postJson('/api/agent/webhooks', JSON.stringify({ url: 'https://a.example', events: ['test\u0000'], secret: 'x'.repeat(16) })), 400);
  });

  it('answers framework-level refusals in the envelope: 404, unknown method, 413, 414, 415, 431', async () => {
    expectEnvelope(await send('GET', '/api/agent/nowhere'), 404, 'NOT_FOUND');
    expectEnvelope(await send('PATCH', '/api/agent/pools'), 404, 'NOT_FOUND');
    expectEnvelope(await postJson('/api/agent/auth/nonce', JSON.stringify({ wallet_address: 'x'.repeat(300 * 1024) })), 413);
    expectEnvelope(await send('GET', `/api/agent/auth/challenge/${'G'.repeat(MAX_PARAM_LENGTH + 1)}`), 414);
    expectEnvelope(await send('POST', '/api/agent/auth/nonce', { body: 'wallet_address=G', headers: { 'content-type': 'text/plain' } }), 415);
    expectEnvelope(
      await send('POST', '/api/agent/auth/nonce', { body: 'wallet_address=G', headers: { 'content-type': 'application/x-www-form-urlencoded' } }),
      415,
    );
    expectEnvelope(await send('GET', '/api/agent/pools', { headers: { 'x-padding': 'a'.repeat(20_000) } }), 431);
    expectEnvelope(await postJson('/api/agent/auth/nonce', '{"wallet_address":'), 400);
  });

  it('keeps a caller-supplied X-Request-Id that is a plain token, and replaces one that is not', async () => {
    const kept = await send('GET', '/api/agent/nowhere', { headers: { 'x-request-id': 'trace-42.a' } });
    expect(kept.body.error.request_id).toBe('trace-42.a');
    const replaced = await send('GET', '/api/agent/nowhere', { headers: { 'x-request-id': 'bad id\twith spaces' } });
    expect(replaced.body.error.request_id).toMatch(/^[0-9a-f-]{36}$/);
  });
});
