import { retryAfterMs, retryingFetch } from './retry';

/** A scripted server: answers the queued responses in order and records what each attempt sent. */
function scripted(...responses: (() => Response)[]) {
  const seen: { method: string; body: string }[] = [];
  const inner = async (request: Request) => {
    seen.push({ method: request.method, body: await request.text() });
    const next = responses.shift();
    if (!next) throw new Error('no more scripted responses');
    return next();
  };
  return { inner, seen };
}
const answer =
  (status: number, headers: Record<string, string> = {}) =>
  () =>
    new Response(JSON.stringify({ status }), { status, headers });

describe('retryingFetch', () => {
  const waits: number[] = [];
  const sleep = async (ms: number) => void waits.push(ms);
  beforeEach(() => waits.splice(0));

  it('waits what Retry-After says on a 429, then returns the success', async () => {
    const { inner, seen } = scripted(answer(429, { 'retry-after': '2' }), answer(200));
    const res = await retryingFetch(inner, { sleep })(new Request('http://agent.test/x'));
    expect(res.status).toBe(200);
    expect(waits).toEqual([2000]);
    expect(seen).toHaveLength(2);
  });

  it('sends the same body on every attempt of a POST', async () => {
    const { inner, seen } = scripted(answer(429, { 'retry-after': '0' }), answer(503, { 'retry-after': '1' }), answer(200));
    const request = new Request('http://agent.test/submit', { method: 'POST', body: '{"signed_xdr":"AAAA"}', headers: { 'content-type': 'application/json' } });
    expect((await retryingFetch(inner, { sleep })(request)).status).toBe(200);
    expect(seen.map((s) => s.body)).toEqual(Array(3).fill('{"signed_xdr":"AAAA"}'));
    expect(waits).toEqual([0, 1000]);
  });

  it('backs off exponentially on a 503 without Retry-After', async () => {
    const { inner } = scripted(answer(503), answer(503), answer(200));
    expect((await retryingFetch(inner, { sleep, baseDelayMs: 100 })(new Request('http://agent.test/x'))).status).toBe(200);
    expect(waits).toEqual([100, 200]);
  });

  it('hands back the refusal when Retry-After is beyond maxWaitMs, without waiting', async () => {
    const { inner, seen } = scripted(answer(429, { 'retry-after': '120' }));
    const res = await retryingFetch(inner, { sleep, maxWaitMs: 60_000 })(new Request('http://agent.test/x'));
    expect(res.status).toBe(429);
    expect(waits).toEqual([]);
    expect(seen).toHaveLength(1);
  });

  it('stops after the configured retries and returns the last answer', async () => {
    const { inner, seen } = scripted(answer(429, { 'retry-after': '1' }), answer(429, { 'retry-after': '1' }), answer(429, { 'retry-after': '1' }));
    const res = await retryingFetch(inner, { sleep, retries: 2 })(new Request('http://agent.test/x'));
    expect(res.status).toBe(429);
    expect(seen).toHaveLength(3);
    expect(waits).toEqual([1000, 1000]);
  });

  it('never retries other statuses', async () => {
    for (const status of [400, 401, 404, 409, 422, 500]) {
      const { inner, seen } = scripted(answer(status));
      expect((await retryingFetch(inner, { sleep })(new Request('http://agent.test/x'))).status).toBe(status);
      expect(seen).toHaveLength(1);
    }
    expect(waits).toEqual([]);
  });
});

describe('retryAfterMs', () => {
  it('reads delta-seconds and HTTP dates', () => {
    expect(retryAfterMs('7')).toBe(7000);
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(retryAfterMs('Thu, 01 Jan 2026 00:00:05 GMT', now)).toBe(5000);
    expect(retryAfterMs('Wed, 31 Dec 2025 23:59:00 GMT', now)).toBe(0);
    expect(retryAfterMs('soon')).toBeUndefined();
    expect(retryAfterMs(null)).toBeUndefined();
  });
});
