import { connect, type Socket } from 'node:net';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { walletEvents } from '@dob/auth';
import { createChainEventCatalog } from '@dob/domain';
import { createSqlEventStore, type EventStore, type RecordedEvent } from '@dob/event-store';
import { HealthRegistry } from '@dob/runtime';
import { type SqlDatabase } from '@dob/sql';
import { testDatabases } from '../../../sql/src/testing/test-databases';
import { appendToFeed, EventFeed, migrateWebhooks, type Notification } from '@dob/webhooks';
import { sampleAccount } from '../../../../libs/webhooks/src/testing/sample-events';
import { createApiAuth } from '../access';
import { createApiApp } from '../bootstrap';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const STREAM = { heartbeatMs: 200, slowConsumerMs: 500, idleReadMs: 200, maxStreamsPerKey: 1 };
/** Large frames fill the loopback socket's buffers in about a second. */
const FRAME_PAD = 50_000;
/** Node's socket highWaterMark (16 KiB): the server stops writing a stream once it is reached and one frame is in flight. */
const SOCKET_HWM = 16 * 1024;

/**
 * Clients that stall or leave at the wrong moment, over raw sockets: a stream's socket is closed within
 * heartbeatMs + slowConsumerMs of its last progress, its buffers stay bounded meanwhile, and the per-key stream slot
 * is held exactly as long as the socket lives (docs/agents.md#event-feed-agents-without-a-public-url).
 */
describe.each(testDatabases())('event streams of stalled clients on $name', (factory) => {
  let db: SqlDatabase;
  let store: EventStore;
  let auth: Awaited<ReturnType<typeof createApiAuth>>;
  let key: string;
  let feed: EventFeed;
  let app: NestFastifyApplication;
  let port: number;
  const serverSockets: Socket[] = [];
  let position = 1_000_000n;

  /** Feed entries written as the fan-out writes them (one transaction, then NOTIFY), each about FRAME_PAD bytes. */
  const appendEntries = async (n: number) => {
    const notes = Array.from({ length: n }, () => {
      position++;
      const event = { id: `stall-${position}`, position: { commit: position, prepare: position }, recordedAt: new Date() } as RecordedEvent;
      const note: Notification = { event: 'shares_transferred', timestamp: new Date().toISOString(), data: { pad: 'x'.repeat(FRAME_PAD) } } as never;
      return { event, note };
    });
    await db.transaction((tx) => appendToFeed(tx, notes));
  };

  /** A client that sends a valid stream request with its key and then never reads a byte. */
  const stalledStream = async (path = '/api/agent/events/stream'): Promise<{ client: Socket; server: Socket }> => {
    const before = serverSockets.length;
    const client = connect(port, '127.0.0.1');
    client.pause();
    await new Promise((r) => client.once('connect', r));
    client.write(`GET ${path} HTTP/1.1\r\nHost: localhost\r\nX-API-Key: ${key}\r\n\r\n`);
    while (serverSockets.length === before) await sleep(5);
    return { client, server: serverSockets[before]! };
  };
  const openStream = (signal: AbortSignal) => fetch(`http://127.0.0.1:${port}/api/agent/events/stream`, { headers: { 'x-api-key': key }, signal });
  /** Opens a stream of the key (closing it at once) until one is accepted or `ms` passed; the last status. */
  const opensWithin = async (ms: number): Promise<number> => {
    for (const deadline = Date.now() + ms; ; await sleep(100)) {
      const c = new AbortController();
      const r = await openStream(c.signal);
      c.abort();
      if (r.status === 200 || Date.now() > deadline) return r.status;
    }
  };

  beforeAll(async () => {
    db = await factory.create();
    store = await createSqlEventStore(db, { catalog: createChainEventCatalog(walletEvents), pollIntervalMs: 20 });
    await migrateWebhooks(db);
    auth = await createApiAuth({ db, events: store, jwt: { secret: 'stalled-consumers-e2e-secret-0123' }, ipRateLimitRpm: 100_000 });
    const created = await auth.keys.createKey(sampleAccount(3), { label: 'stalled', scopes: ['read'], origin: 'register' });
    await auth.keys.setRateLimit(created.record.keyId, 100_000);
    key = created.key;
    feed = new EventFeed({ db, eventStore: store, pollIntervalMs: 100 });
    app = await createApiApp({ health: new HealthRegistry(), auth, events: { feed, stream: STREAM } }, { logger: false });
    app.getHttpServer().on('connection', (s: Socket) => serverSockets.push(s));
    await app.listen(0, '127.0.0.1');
    port = (app.getHttpServer().address() as { port: number }).port;
  });
  afterAll(async () => {
    for (const s of serverSockets) s.destroy();
    await app?.close();
    await feed?.close();
    await auth?.close();
    await store?.close();
    await db?.close();
  });

  it('a client that never reads: the server buffers at most one buffer and two frames, closes the socket, and holds the slot until then', async () => {
    const { client, server } = await stalledStream();
    let closedAt: number | undefined;
    server.once('close', () => (closedAt = Date.now()));
    let maxBuffered = 0;
    let lastProgress = Date.now(); // the last time the server's buffer for it was empty or shrank
    let previous = 0;
    const accepted: number[] = [];
    const opened: AbortController[] = [];
    const tryAnother = async () => {
      const c = new AbortController();
      opened.push(c);
      const r = await openStream(c.signal);
      if (r.status === 200) accepted.push(Date.now());
      else expect(r.status).toBe(429);
      if (r.status !== 200) await r.body?.cancel();
    };
    // Events keep coming until the client's buffers are full; another stream of the same key is tried meanwhile.
    for (let i = 0, stalledFor = 0; i < 150 && closedAt === undefined; i++) {
      if (stalledFor++ < 3) await appendEntries(4);
      await sleep(50);
      if (closedAt !== undefined) break;
      const buffered = server.writableLength;
      if (buffered === 0 || buffered < previous) [lastProgress, stalledFor] = [Date.now(), 0];
      [previous, maxBuffered] = [buffered, Math.max(maxBuffered, buffered)];
      await tryAnother();
    }
    await tryAnother();
    for (const c of opened) c.abort();
    client.destroy();

    expect(maxBuffered).toBeGreaterThan(0); // it did stall
    expect(maxBuffered).toBeLessThan(SOCKET_HWM + 2 * (FRAME_PAD + 1_000));
    // Closed within heartbeat + slow-consumer time of its last progress. The margin: the kernel still takes a trickle
    // (about 0.7 s here) after Node's buffer stops shrinking, and Node counts that as progress; and a loaded machine.
    expect(closedAt).toBeDefined();
    expect(closedAt! - lastProgress).toBeLessThan(STREAM.heartbeatMs + STREAM.slowConsumerMs + 3_000);
    // The key's only slot was taken by the stalled stream until its socket closed, and only then given out again.
    expect(accepted.length).toBeGreaterThan(0);
    expect(accepted.every((t) => t >= closedAt!)).toBe(true);
  });

  it('a client that leaves while its stream is being set up frees its slot', async () => {
    expect(await opensWithin(10_000)).toBe(200); // the key's slot is free once the previous test's streams are gone
    // The stream's start position is read before the stream begins; a slow read widens the window the client leaves in.
    const now = feed.now.bind(feed);
    feed.now = async () => (await sleep(300), now());
    try {
      const { client } = await stalledStream(`/api/agent/events/stream?pools=${sampleAccount(9)}`);
      await sleep(100);
      client.destroy();
      await sleep(500);
    } finally {
      feed.now = now;
    }
    // Before, the left stream held the key's only slot until a matching event was written: never, on a quiet pool.
    expect(await opensWithin(5_000)).toBe(200);
  });
});
