/**
 * The agents' event feed on PostgreSQL: the notifier's fan-out (which appends to the feed) and one API instance in
 * this process, 1,000 SSE streams open on it.
 * - latency: 100 events/s for 20 s appended to the event store; append committed → frame received, on 10 streams
 *   that follow every shares_transferred (p50/p99). The other 990 streams are open with a filter nothing matches:
 *   they are woken by every append like the rest, but 100 k frames/s parsed in this same process would measure the
 *   benchmark's client, not the server.
 * - baseline, same run, same appends: 10 streams of a bare node:http SSE server fed straight by the event store's
 *   own subscription (no fan-out projection, no feed table, no API): what the store and HTTP alone cost.
 * - memory: process RSS and V8 heap (after GC) before and after opening the 1,000 streams, per stream.
 * Chain → stream adds the indexer's ledger-to-append time (bench/indexer.bench.ts) to these numbers.
 *   node -r @swc-node/register bench/event-feed.bench.ts   → bench/results/event-feed.json
 */
import { randomBytes } from 'node:crypto';
import { createServer, type ServerResponse } from 'node:http';
import { createParser } from 'eventsource-parser';
import { walletEvents } from '@dob/auth';
import { createChainEventCatalog } from '@dob/domain';
import { createSqlEventStore } from '@dob/event-store';
import { HealthRegistry } from '@dob/runtime';
import { createPostgresDatabase } from '@dob/sql';
import { TEST_POSTGRES_URL } from '../libs/sql/src/testing/test-databases';
import { createNotifier, EventFeed } from '@dob/webhooks';
import { createApiAuth } from '../libs/api-http/src/access';
import { createApiApp } from '../libs/api-http/src/bootstrap';
import { DEFAULT_HTTP_LIMITS } from '../libs/api-http/src/http/connection-limits';
import { runWhenMain, startMachineRecord, writeBenchResult } from './bench-report';
import { sampleAccount, sampleSharesTransferred } from '../libs/webhooks/src/testing/sample-events';

const STREAMS = 1_000;
const MEASURED = 10;
const RATE = 100;
const SECONDS = 20;

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
const memory = () => {
  (globalThis as { gc?: () => void }).gc?.();
  const m = process.memoryUsage();
  return { rssMiB: Math.round(m.rss / 2 ** 20), heapUsedMiB: Math.round(m.heapUsed / 2 ** 20) };
};

export async function run() {
  const machine = startMachineRecord();
  const db = await createPostgresDatabase({ connectionString: TEST_POSTGRES_URL, schema: `bench_feed_${randomBytes(4).toString('hex')}` });
  const store = await createSqlEventStore(db, { catalog: createChainEventCatalog(walletEvents), pollIntervalMs: 20 });
  const notifier = await createNotifier({ db, eventStore: store, secretKey: randomBytes(32), pollIntervalMs: 20 });
  await notifier.start();
  const auth = await createApiAuth({ db, events: store, jwt: { secret: 'event-feed-bench-secret-0123456789' }, ipRateLimitRpm: 1_000_000 });
  const created = await auth.keys.createKey(sampleAccount(2), { label: 'bench', scopes: ['read'], origin: 'register' });
  await auth.keys.setRateLimit(created.record.keyId, 1_000_000);
  const feed = new EventFeed({ db, eventStore: store });
  const app = await createApiApp(
    { health: new HealthRegistry(), auth, events: { feed, stream: { maxStreamsPerKey: STREAMS } } },
    {
      logger: false,
      // One client (this process) holds every stream: above the per-client connection cap a deployment keeps.
      http: { ...DEFAULT_HTTP_LIMITS, connectionsPerClient: STREAMS + 10 },
    },
  );
  await app.listen(0, '127.0.0.1');
  const url = `http://127.0.0.1:${(app.getHttpServer().address() as { port: number }).port}/api/agent/events/stream`;
  const abort = new AbortController();
  const appendedAt = new Map<string, number>(); // transaction_hash → when its append committed
  // Arrivals are kept as (transaction, when) and turned into latencies at the end: a frame may arrive before the
  // append call has returned (the bare path often does), and counting only frames whose commit time was already
  // known would drop exactly the fastest ones.
  const arrivals: { tx: string; at: number }[] = [];
  const baselineArrivals: { tx: string; at: number }[] = [];

  // The baseline: a bare SSE server whose streams the event store's subscription writes to directly.
  const bare = new Set<ServerResponse>();
  const bareServer = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store' });
    res.write(': open\n\n');
    bare.add(res);
    res.on('close', () => bare.delete(res));
  });
  await new Promise<void>((r) => bareServer.listen(0, '127.0.0.1', r));
  const bareUrl = `http://127.0.0.1:${(bareServer.address() as { port: number }).port}/`;
  const transferType = sampleSharesTransferred(3, 0).event.type;
  const bareFeed = store.subscribeToAll({
    after: await store.headPosition(),
    types: [transferType],
    onPage: async (page) => {
      for (const e of page.events) {
        const frame = `id: ${e.position.toString()}\nevent: shares_transferred\ndata: ${JSON.stringify({ data: { transaction_hash: (e.data as { chain: { tx_hash: string } }).chain.tx_hash } })}\n\n`;
        for (const res of bare) res.write(frame);
      }
    },
  });

  const open = async (
    types: string,
    measure: boolean,
    target: { url: string; into: { tx: string; at: number }[] } = { url: `${url}?types=${types}`, into: arrivals },
  ) => {
    const res = await fetch(target.url, { headers: { 'x-api-key': created.key }, signal: abort.signal }).catch((e: unknown) => {
      throw new Error(`opening ${target.url}: ${String(e)}`);
    });
    if (res.status !== 200) throw new Error(`stream answered ${res.status}`);
    const parser = createParser({
      onEvent: (m) => {
        if (!measure) return;
        target.into.push({ tx: (JSON.parse(m.data) as { data: { transaction_hash: string } }).data.transaction_hash, at: Date.now() });
      },
    });
    void (async () => {
      const decoder = new TextDecoder();
      try {
        for await (const chunk of res.body!) parser.feed(decoder.decode(chunk as Uint8Array, { stream: true }));
      } catch {
        // aborted at the end
      }
    })();
  };

  try {
    const before = memory();
    for (let i = 0; i < STREAMS - MEASURED; i++) await open('crowdfunding_failed', false);
    for (let i = 0; i < MEASURED; i++) await open('shares_transferred', true);
    for (let i = 0; i < MEASURED; i++) await open('', true, { url: bareUrl, into: baselineArrivals });
    await new Promise((r) => setTimeout(r, 1000));
    const opened = memory();

    const events = Array.from({ length: RATE * SECONDS }, (_, n) => sampleSharesTransferred(3, n));
    const start = Date.now();
    for (let i = 0; i < events.length; i++) {
      const due = start + (i * 1000) / RATE;
      if (due > Date.now()) await new Promise((r) => setTimeout(r, due - Date.now()));
      await store.appendToStream(events[i].streamId, [events[i].event]);
      appendedAt.set((events[i].event.data as { chain: { tx_hash: string } }).chain.tx_hash, Date.now());
    }
    const until = Date.now() + 30_000;
    while ((arrivals.length < events.length * MEASURED || baselineArrivals.length < events.length * MEASURED) && Date.now() < until) {
      await new Promise((r) => setTimeout(r, 50));
    }
    const after = memory();
    /** Append committed → frame received; a frame that beat the append call's return counts as 0 ms. */
    const latenciesOf = (list: { tx: string; at: number }[]) =>
      list.flatMap((a) => (appendedAt.has(a.tx) ? [Math.max(0, a.at - appendedAt.get(a.tx)!)] : [])).sort((x, y) => x - y);
    const sorted = latenciesOf(arrivals);
    const base = latenciesOf(baselineArrivals);
    const result = {
      benchmark: 'event-feed',
      at: new Date().toISOString(),
      machine: machine(),
      parameters: { database: 'postgres', openStreams: STREAMS, measuredStreams: MEASURED, eventsPerSecond: RATE, seconds: SECONDS },
      latency: {
        framesExpected: events.length * MEASURED,
        framesReceived: sorted.length,
        appendToFrameMs: { p50: pct(sorted, 50), p90: pct(sorted, 90), p99: pct(sorted, 99), max: sorted[sorted.length - 1] },
      },
      baseline: {
        what: 'the same appends, 10 streams of a bare node:http SSE server written by the event store subscription itself (no fan-out, no feed table, no API)',
        framesReceived: base.length,
        appendToFrameMs: { p50: pct(base, 50), p90: pct(base, 90), p99: pct(base, 99), max: base[base.length - 1] },
      },
      memory: {
        before,
        withStreamsOpen: opened,
        afterLoad: after,
        perStreamKiB: Math.round(((opened.rssMiB - before.rssMiB) * 1024) / STREAMS),
      },
    };
    writeBenchResult('event-feed', result);
    console.log(JSON.stringify(result, null, 2));
    return result;
  } finally {
    abort.abort();
    await bareFeed.stop();
    for (const res of bare) res.end();
    await new Promise<void>((r) => bareServer.close(() => r()));
    await app.close();
    await feed.close();
    await notifier.stop();
    await auth.close();
    await store.close();
    await db.close();
  }
}

runWhenMain(module, run);
