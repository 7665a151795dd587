/**
 * Webhook delivery on PostgreSQL to a local HTTPS receiver (self-signed, keep-alive): the notifier's fan-out
 * projection + delivery worker in this process, 5 webhooks, every event subscribed by all of them.
 * - burst: 2,000 events appended at once → 10,000 deliveries; deliveries per second (first to last arrival).
 * - paced: 40 events/s for 10 s → event-to-delivery latency (append committed → body received) p50/p99.
 *   node -r @swc-node/register bench/webhooks.bench.ts   → bench/results/webhooks.json
 */
import { randomBytes } from 'node:crypto';
import { createChainEventCatalog } from '@dob/domain';
import { createSqlEventStore } from '@dob/event-store';
import { createPostgresDatabase } from '@dob/sql';
import { TEST_POSTGRES_URL } from '../libs/sql/src/testing/test-databases';
import { createNotifier, deliveryId } from '@dob/webhooks';
import { runWhenMain, startMachineRecord, writeBenchResult } from './bench-report';
import { sampleSharesTransferred, type SampleAppend } from '../libs/webhooks/src/testing/sample-events';
import { startTestReceiver } from '../libs/webhooks/src/testing/https-receiver';
import { testCaller } from '../libs/webhooks/src/testing/test-caller';

const HOOKS = 5;
const BURST_EVENTS = 2_000;
const PACED_RATE = 40;
const PACED_SECONDS = 10;
const CONCURRENCY = 32;

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

export async function run() {
  const machine = startMachineRecord();
  const receiver = await startTestReceiver();
  const db = await createPostgresDatabase({ connectionString: TEST_POSTGRES_URL, schema: `bench_wh_${randomBytes(4).toString('hex')}` });
  const store = await createSqlEventStore(db, { catalog: createChainEventCatalog(), pollIntervalMs: 20 });
  const notifier = await createNotifier({
    db,
    eventStore: store,
    secretKey: randomBytes(32),
    allowList: { hosts: ['localhost'] },
    ca: receiver.cert,
    concurrency: CONCURRENCY,
    pollIntervalMs: 50,
  });
  const hooks: { id: string }[] = [];
  for (let i = 0; i < HOOKS; i++) {
    hooks.push(
      await notifier.components.service.register(testCaller(`ak_bench_${i}`), {
        url: `${receiver.origin}/h${i}`,
        events: ['shares_transferred'],
        secret: `bench-secret-${i}-0123456789`,
      }),
    );
  }
  await notifier.start();
  const appendedAt = new Map<string, number>(); // delivery id → when its event's append committed
  const append = async (items: SampleAppend[]) => {
    await store.appendToStream(
      items[0].streamId,
      items.map((i) => i.event),
    );
    const t = Date.now();
    for (const i of items) for (const h of hooks) appendedAt.set(deliveryId(i.event.id, h.id), t);
  };
  const waitFor = async (n: number) => {
    while (receiver.requests.length < n) await new Promise((r) => setTimeout(r, 10));
  };

  try {
    // Burst.
    const burst = Array.from({ length: BURST_EVENTS }, (_, n) => sampleSharesTransferred(1, n));
    const t0 = Date.now();
    for (let i = 0; i < burst.length; i += 500) await append(burst.slice(i, i + 500));
    await waitFor(BURST_EVENTS * HOOKS);
    const burstMs = Math.max(...receiver.requests.map((r) => r.receivedAt)) - t0;
    const burstDeliveries = receiver.requests.length;

    // Paced.
    receiver.requests.length = 0;
    const paced = Array.from({ length: PACED_RATE * PACED_SECONDS }, (_, n) => sampleSharesTransferred(2, n));
    const start = Date.now();
    for (let i = 0; i < paced.length; i++) {
      const due = start + (i * 1000) / PACED_RATE;
      if (due > Date.now()) await new Promise((r) => setTimeout(r, due - Date.now()));
      await append([paced[i]]);
    }
    await waitFor(paced.length * HOOKS);
    const latencies = receiver.requests
      .map((r) => r.receivedAt - (appendedAt.get(r.headers['x-svc-delivery'] as string) ?? NaN))
      .filter((v) => Number.isFinite(v))
      .sort((a, b) => a - b);
    const result = {
      benchmark: 'webhooks',
      at: new Date().toISOString(),
      machine: machine(),
      parameters: {
        database: 'postgres',
        webhooks: HOOKS,
        burstEvents: BURST_EVENTS,
        pacedEventsPerSecond: PACED_RATE,
        pacedSeconds: PACED_SECONDS,
        workerConcurrency: CONCURRENCY,
        receiver: 'local HTTPS (self-signed, keep-alive), same machine',
      },
      burst: { deliveries: burstDeliveries, ms: burstMs, deliveriesPerSecond: Math.round((burstDeliveries / burstMs) * 1000) },
      paced: {
        deliveries: latencies.length,
        eventToDeliveryLatencyMs: { p50: pct(latencies, 50), p90: pct(latencies, 90), p99: pct(latencies, 99), max: latencies[latencies.length - 1] },
      },
    };
    writeBenchResult('webhooks', result);
    return result;
  } finally {
    await notifier.stop();
    await store.close();
    await db.close();
    await receiver.close();
  }
}

runWhenMain(module, run);
