import { createAgentClient } from './client';
import { submitTrade } from './trading';

const sse = (frames: string) => new Response(new Blob([frames]).stream(), { status: 200, headers: { 'content-type': 'text/event-stream' } });
const frame = (id: string, n: number) =>
  `id: ${id}\nevent: shares_transferred\ndata: ${JSON.stringify({ id, event: 'shares_transferred', timestamp: 't', data: { n } })}\n\n`;

describe('client.events.stream', () => {
  it('reconnects after the stream ends or is cut, sending the last id it yielded as Last-Event-ID', async () => {
    const asked: (string | null)[] = [];
    const answers = [
      () => sse(`retry: 5\n${frame('1:1', 1)}${frame('1:2', 2)}`),
      () => {
        throw new TypeError('fetch failed');
      },
      () => sse(`${frame('1:3', 3)}event: error\ndata: {"code":"SLOW_CONSUMER"}\n\n`),
      () => sse(frame('2:1', 4)),
    ];
    const client = createAgentClient({
      baseUrl: 'http://agent.test',
      apiKey: 'svc_ak_test',
      retry: { retries: 0 },
      fetch: async (request) => {
        asked.push(request.headers.get('last-event-id'));
        expect(request.headers.get('x-api-key')).toBe('svc_ak_test');
        expect(new URL(request.url).searchParams.get('types')).toBe('shares_transferred');
        return answers.shift()!();
      },
    });
    const seen: number[] = [];
    for await (const e of client.events.stream({ types: ['shares_transferred'] })) {
      seen.push(e.data.n as number);
      if (seen.length === 4) break;
    }
    expect(seen).toEqual([1, 2, 3, 4]);
    expect(asked).toEqual([null, '1:2', '1:2', '1:3']);
  });

  it('throws a refusal (bad cursor) as AgentApiError instead of reconnecting', async () => {
    const client = createAgentClient({
      baseUrl: 'http://agent.test',
      fetch: async () =>
        new Response(JSON.stringify({ success: false, error: { code: 'CURSOR_EXPIRED', message: 'old', details: { oldest_cursor: '5:1' } } }), { status: 410 }),
    });
    await expect(client.events.stream({ after: '1:1' }).next()).rejects.toMatchObject({
      code: 'CURSOR_EXPIRED',
      status: 410,
      details: { oldest_cursor: '5:1' },
    });
  });
});

describe('submitTrade retries', () => {
  const ok = { success: true, data: { transaction_hash: 'ab' } };
  it('resends after a network error and after an in-flight CONFLICT; other refusals are thrown at once', async () => {
    const answers = [
      () => {
        throw new TypeError('fetch failed');
      },
      () =>
        new Response(JSON.stringify({ success: false, error: { code: 'CONFLICT', message: 'in flight', details: { state: 'submitting' } } }), {
          status: 409,
          headers: { 'retry-after': '2' },
        }),
      () => new Response(JSON.stringify(ok), { status: 200, headers: { 'content-type': 'application/json', 'idempotent-replayed': 'true' } }),
    ];
    let sent = 0;
    const client = createAgentClient({ baseUrl: 'http://agent.test', retry: { retries: 0 }, fetch: async () => (sent++, answers.shift()!()) });
    const waits: number[] = [];
    const sleep = async (ms: number) => void waits.push(ms);
    await expect(submitTrade(client, 'buy', 'signed', 9, { sleep, backoffMs: 100 })).resolves.toEqual(ok);
    expect([sent, waits]).toEqual([3, [100, 2000]]);

    const refused = createAgentClient({
      baseUrl: 'http://agent.test',
      fetch: async () => new Response(JSON.stringify({ success: false, error: { code: 'TRANSACTION_FAILED', message: 'no' } }), { status: 422 }),
    });
    await expect(submitTrade(refused, 'buy', 'signed', 9, { sleep })).rejects.toMatchObject({ code: 'TRANSACTION_FAILED' });
    expect(waits).toHaveLength(2);
  });
});
