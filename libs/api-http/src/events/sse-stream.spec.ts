import { PassThrough } from 'node:stream';
import type { ServerResponse } from 'node:http';
import type { EventFeed, FeedEntry } from '@dob/webhooks';
import { OpenStreams, streamFeed } from './sse-stream';

const entry = (n: number): FeedEntry => ({
  position: { commit: 10n, prepare: BigInt(n) },
  event: 'shares_transferred',
  timestamp: '2026-01-01T00:00:00.000Z',
  data: { n, pad: 'x'.repeat(2000) },
});

/** A feed with `count` entries and a head that never moves again. */
function fakeFeed(count: number): EventFeed {
  const entries = Array.from({ length: count }, (_, i) => entry(i + 1));
  return {
    latest: async () => entries.at(-1)!.position,
    read: async (after: { prepare: bigint }, limit: number) => entries.filter((e) => e.position.prepare > after.prepare).slice(0, limit),
    waitBeyond: (_: unknown, ms: number, abort?: AbortSignal) => new Promise<void>((r) => (setTimeout(r, ms), abort?.addEventListener('abort', () => r()))),
  } as unknown as EventFeed;
}

const settings = { heartbeatMs: 20, slowConsumerMs: 50, idleReadMs: 30, maxStreamsPerKey: 1 };

describe('SSE stream', () => {
  it('a consumer that stops reading is cut with SLOW_CONSUMER once its buffer is full; memory stays bounded', async () => {
    const socket = new PassThrough({ highWaterMark: 16 * 1024 }); // nobody reads it
    const ended = new Promise<void>((r) => socket.on('finish', r));
    await streamFeed(socket as unknown as ServerResponse, fakeFeed(1000), { commit: -1n, prepare: -1n }, {}, settings, new AbortController().signal);
    await Promise.race([ended, new Promise((r) => setTimeout(r, 10))]);
    const written: string = socket.read()?.toString() ?? '';
    expect(written).toMatch(/event: error\ndata: \{"code":"SLOW_CONSUMER"/);
    // It stopped after about one buffer's worth of frames, not all 1000.
    expect((written.match(/^id: /gm) ?? []).length).toBeLessThan(50);
  });

  it('writes every entry once with its id, heartbeats while idle, and ends when the client leaves', async () => {
    const socket = new PassThrough();
    let text = '';
    socket.on('data', (c: Buffer) => (text += c.toString()));
    const abort = new AbortController();
    const run = streamFeed(socket as unknown as ServerResponse, fakeFeed(3), { commit: 10n, prepare: 1n }, {}, settings, abort.signal);
    await new Promise((r) => setTimeout(r, 100));
    abort.abort();
    await run;
    expect(text.match(/^id: .*$/gm)).toEqual(['id: 10:2', 'id: 10:3']);
    expect(text).toMatch(/: heartbeat\n\n/);
  });

  it('refuses a stream over the per-key limit until one is released', () => {
    const open = new OpenStreams(1);
    const release = open.acquire('ak_1');
    expect(() => open.acquire('ak_1')).toThrow(expect.objectContaining({ code: 'RATE_LIMIT_EXCEEDED', status: 429 }));
    expect(() => open.acquire('ak_2')()).not.toThrow();
    release();
    expect(() => open.acquire('ak_1')).not.toThrow();
  });
});
