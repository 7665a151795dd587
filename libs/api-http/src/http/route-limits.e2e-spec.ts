import { request as httpRequest } from 'node:http';
import { connect, type Socket } from 'node:net';
import { ServiceMetrics } from '@dob/observability';
import { startFullApi, type FullApi } from '../testing/full-api';
import { DEFAULT_HTTP_LIMITS } from './connection-limits';

/**
 * Issue 29 through real HTTP to a started API: the request gate limits a route however its URL is spelled, the
 * client address comes from trusted proxies only and IPv6 clients share a bucket per /64, a stalled request is cut
 * within its timeout, one client cannot hold more connections than its cap, and /metrics needs its token.
 */
describe('limits apply to the route, not the spelling', () => {
  const IP_RPM = 3;
  let api: FullApi;
  let port: number;

  type Answer = { status: number; limit?: string };
  /** One request with the target exactly as given (node:http sends `path` verbatim: absolute form, %xx, //). */
  const send = (method: string, target: string, headers: Record<string, string> = {}): Promise<Answer> =>
    new Promise((resolve, reject) => {
      const req = httpRequest({ host: '127.0.0.1', port, method, path: target, headers: { host: 'api.example', ...headers }, agent: false }, (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode!, limit: res.headers['x-ratelimit-limit'] as string | undefined }));
      });
      req.on('error', reject);
      req.end();
    });

  /** How many of `n` requests from client `ip` were answered before the first 429 (and that a 429 came). */
  const admittedOf = async (method: string, target: string, ip: string, n: number): Promise<{ admitted: number; refused: number }> => {
    let admitted = 0;
    let refused = 0;
    for (let i = 0; i < n; i++) {
      const r = await send(method, target, { 'x-forwarded-for': ip });
      if (r.status === 429) refused++;
      else if (refused === 0) admitted++;
    }
    return { admitted, refused };
  };

  beforeAll(async () => {
    api = await startFullApi({ ipRateLimitRpm: IP_RPM, http: { ...DEFAULT_HTTP_LIMITS, trustedProxies: ['127.0.0.1'] } });
    port = Number(new URL(api.base).port);
  });
  afterAll(async () => api?.close());

  it('charges every spelling the router accepts (and every one it does not) like the canonical one', async () => {
    const canonical = await admittedOf('GET', '/api/agent/pools', '198.51.100.1', 30);
    expect(canonical.refused).toBeGreaterThan(0);
    expect(canonical.admitted).toBeGreaterThanOrEqual(IP_RPM);
    const spellings: [string, string][] = [
      ['GET', '/%61pi/agent/pools'], // percent-encoded prefix: the router decodes it to the same route
      ['GET', '/api/agent/%70ools'],
      ['GET', 'http://api.example/api/agent/pools'], // absolute form
      ['GET', 'http://api.example/%61pi/agent/pools?page=1'],
      ['HEAD', '/api/agent/pools'],
      ['GET', '/api/agent/pools/'], // trailing slash: not a route (404), still charged
      ['GET', '//api/agent/pools'], // duplicate slashes
      ['GET', '/api//agent/pools'],
      ['GET', '/API/AGENT/POOLS'], // routes are case-sensitive: 404, still charged
      ['POST', '/%61pi/agent/auth/nonce'],
    ];
    for (const [i, [method, target]] of spellings.entries()) {
      const seen = await admittedOf(method, target, `198.51.100.${10 + i}`, canonical.admitted + 3);
      expect({ target, ...seen }).toEqual({ target, admitted: canonical.admitted, refused: 3 });
    }
  });

  it('answers a percent-encoded or absolute-form route like the canonical one, key and rate-limit headers included', async () => {
    for (const target of ['/%61pi/agent/pools', 'http://api.example/api/agent/pools']) {
      const r = await send('GET', target, { 'x-api-key': api.key, 'x-forwarded-for': '198.51.100.99' });
      expect(r).toEqual({ status: 200, limit: '100000' });
    }
  });

  it('buckets IPv6 clients per /64, and believes X-Forwarded-For only from a trusted proxy', async () => {
    const first = await admittedOf('GET', '/api/agent/pools', '2001:db8:aa:bb::1', 30);
    expect(first.refused).toBeGreaterThan(0);
    // Another address of the same /64 is the same client: refused at once.
    expect((await send('GET', '/api/agent/pools', { 'x-forwarded-for': '2001:db8:aa:bb:ffff::2' })).status).toBe(429);
    // Another /64 is another client.
    expect((await send('GET', '/api/agent/pools', { 'x-forwarded-for': '2001:db8:aa:bc::1' })).status).toBe(401);
  });
});

describe('HTTP timeouts, connection cap and /metrics', () => {
  const TOKEN = 'metrics-token-for-the-test-0123';
  let api: FullApi;
  let port: number;
  const limits = { requestTimeoutMs: 2_000, headersTimeoutMs: 1_000, keepAliveTimeoutMs: 1_000, connectionsPerClient: 4, trustedProxies: [] };

  beforeAll(async () => {
    api = await startFullApi({ http: limits, metrics: new ServiceMetrics({ app: 'api' }), metricsToken: TOKEN });
    port = Number(new URL(api.base).port);
  });
  afterAll(async () => api?.close());

  /** A socket that wrote `text` and then nothing; resolves with what came back and how long until it closed (≤ 15 s). */
  const stall = (text: string): Promise<{ answer: string; closedAfterMs: number | null }> =>
    new Promise((resolve) => {
      const started = Date.now();
      let answer = '';
      const socket = connect(port, '127.0.0.1', () => socket.write(text));
      socket.on('data', (d) => (answer += String(d)));
      socket.on('error', () => undefined);
      const giveUp = setTimeout(() => {
        socket.destroy();
        resolve({ answer, closedAfterMs: null });
      }, 15_000);
      socket.on('close', () => {
        clearTimeout(giveUp);
        resolve({ answer, closedAfterMs: Date.now() - started });
      });
    });

  it('cuts a request whose declared body never arrives within the request timeout, with a 408 in the envelope', async () => {
    const r = await stall('POST /api/agent/auth/nonce HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"wallet_address":');
    expect(r.closedAfterMs).not.toBeNull();
    // Node checks the timeouts every second (connectionsCheckingInterval), so the cut comes within timeout + 1 s.
    expect(r.closedAfterMs!).toBeLessThan(limits.requestTimeoutMs + 1_500);
    expect(r.answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(r.answer).toContain('"code":"VALIDATION_ERROR"');
  });

  it('cuts a request whose headers never finish within the headers timeout', async () => {
    const r = await stall('GET /api/agent/pools HTTP/1.1\r\nHost: x\r\nX-Slow: ');
    expect(r.closedAfterMs).not.toBeNull();
    expect(r.closedAfterMs!).toBeLessThan(limits.headersTimeoutMs + 1_500);
  });

  it('closes a client connection beyond its cap at once, and takes new ones once others closed', async () => {
    const open = (): Promise<Socket> =>
      new Promise((resolve, reject) => {
        const s = connect(port, '127.0.0.1', () => resolve(s));
        s.on('error', reject);
      });
    const held = await Promise.all(Array.from({ length: limits.connectionsPerClient }, open));
    await new Promise((r) => setTimeout(r, 100)); // the server has counted them
    const extra = await stall('GET /health/live HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(extra.answer).toBe('');
    expect(extra.closedAfterMs!).toBeLessThan(1_000);
    await Promise.all(
      held.map(
        (s) =>
          new Promise((r) => {
            s.once('close', r);
            s.destroy();
          }),
      ),
    );
    await new Promise((r) => setTimeout(r, 200));
    const res = await fetch(`${api.base}/health/live`);
    expect(res.status).toBe(200);
  });

  it('refuses /metrics without the bearer token and serves it with the token', async () => {
    expect((await fetch(`${api.base}/metrics`)).status).toBe(401);
    expect((await fetch(`${api.base}/metrics`, { headers: { authorization: 'Bearer wrong' } })).status).toBe(401);
    const res = await fetch(`${api.base}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('http_request_duration_seconds');
  });
});

describe('/metrics without a token', () => {
  it('is not served on the API port', async () => {
    const api = await startFullApi({ metrics: new ServiceMetrics({ app: 'api' }) });
    try {
      expect((await fetch(`${api.base}/metrics`)).status).toBe(404);
    } finally {
      await api.close();
    }
  });
});
