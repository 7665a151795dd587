/**
 * Webhook delivery on PostgreSQL to a local HTTPS receiver (self-signed, keep-alive) in a process of its own
 * (bench/webhook-receiver-child.ts, as a subscriber's server is): the notifier's fan-out projection + delivery worker
 * in this process, 5 webhooks, every event subscribed by all of them (issue 33 item 5).
 * - baseline: the same 10,000 signed bodies POSTed straight to the receiver by a bare keep-alive sender with the
 *   worker's concurrency — no database, no queue: what this machine's HTTPS alone allows, in the same run.
 * - burst: 2,000 events appended at once → 10,000 deliveries; deliveries per second (first append to last arrival).
 * - paced: 200 events/s for 10 s → event-to-delivery latency (append committed → body received) p50/p99.
 * Every delivery's X-Svc-Signature is verified and every expected delivery id counted: none lost, duplicates (the
 * at-least-once contract allows them) reported.
 *   node -r @swc-node/register bench/webhooks.bench.ts   → bench/results/webhooks.json
 */
import { fork, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { createChainEventCatalog } from '@dob/domain';
import { createSqlEventStore } from '@dob/event-store';
import { createPostgresDatabase } from '@dob/sql';
import { TEST_POSTGRES_URL } from '../libs/sql/src/testing/test-databases';
import { Agent, request } from 'node:https';
import { createSecureContext, rootCertificates } from 'node:tls';
import { createNotifier, deliveryId, deliveryHeaders, verifySvcSignature } from '@dob/webhooks';
import { runWhenMain, startMachineRecord, writeBenchResult } from './bench-report';
import { sampleSharesTransferred, type SampleAppend } from '../libs/webhooks/src/testing/sample-events';
import type { ReceivedRequest } from '../libs/webhooks/src/testing/https-receiver';
import { testCaller } from '../libs/webhooks/src/testing/test-caller';

const HOOKS = 5;
const BURST_EVENTS = 2_000;
const PACED_RATE = 200;
const PACED_SECONDS = 10;
const CONCURRENCY = 32;

/** Bare keep-alive HTTPS POSTs of `bodies`, `concurrency` at a time: deliveries per second. */
async function bareSender(url: string, ca: string, bodies: readonly { headers: Record<string, string>; body: string }[], concurrency: number) {
  const agent = new Agent({ keepAlive: true, maxSockets: 64, secureContext: createSecureContext({ ca: [...rootCertificates, ca] }) });
  let next = 0;
  const post = (item: { headers: Record<string, string>; body: string }) =>
    new Promise<void>((resolve, reject) => {
      const payload = Buffer.from(item.body, 'utf8');
      const req = request(url, { method: 'POST', agent, headers: { ...item.headers, 'content-length': String(payload.length) } }, (res) => {
        res.resume();
        res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`HTTP ${res.statusCode}`))));
      });
      req.on('error', reject);
      req.end(payload);
    });
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < bodies.length) await post(bodies[next++]!);
    }),
  );
  const ms = performance.now() - t0;
  agent.destroy();
  return { deliveries: bodies.length, ms: Math.round(ms), deliveriesPerSecond: Math.round((bodies.length / ms) * 1000) };
}

/** The receiver child (bench/webhook-receiver-child.ts) and what the bench asks of it. */
interface RemoteReceiver {
  readonly origin: string;
  readonly cert: string;
  count(): Promise<number>;
  /** The requests received since the last take. */
  take(): Promise<ReceivedRequest[]>;
  close(): Promise<void>;
}

async function startRemoteReceiver(): Promise<RemoteReceiver> {
  const child: ChildProcess = fork(join(__dirname, 'webhook-receiver-child.ts'), [], { execArgv: ['-r', '@swc-node/register'], stdio: 'inherit' });
  const next = <T>(kind: string) =>
    new Promise<T>((resolve, reject) => {
      const onMessage = (m: { kind: string }) => {
        if (m.kind !== kind) return;
        child.off('message', onMessage);
        child.off('exit', onExit);
        resolve(m as T);
      };
      const onExit = (code: number | null) => reject(new Error(`the receiver child exited (${code}) before answering ${kind}`));
      child.on('message', onMessage);
      child.once('exit', onExit);
    });
  const ready = await next<{ origin: string; cert: string }>('ready');
  const ask = <T>(kind: string) => {
    const answer = next<T>(kind);
    child.send({ kind });
    return answer;
  };
  return {
    origin: ready.origin,
    cert: ready.cert,
    count: async () => (await ask<{ count: number }>('count')).count,
    take: async () =>
      (await ask<{ requests: (Omit<ReceivedRequest, 'raw'> & { raw: string })[] }>('take')).requests.map((r) => ({ ...r, raw: Buffer.from(r.raw, 'base64') })),
    close: async () => {
      const exited = new Promise((r) => child.once('exit', r));
      child.send({ kind: 'close' });
      await exited;
    },
  };
}

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

export async function run() {
  const machine = startMachineRecord();
  const receiver = await startRemoteReceiver();
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
  /** Waits until `n` requests arrived (asking the receiver every 20 ms), then takes them. */
  const received = async (n: number): Promise<ReceivedRequest[]> => {
    while ((await receiver.count()) < n) await new Promise((r) => setTimeout(r, 20));
    return receiver.take();
  };

  const secretOf = new Map(hooks.map((h, i) => [h.id, `bench-secret-${i}-0123456789`]));
  /** Signatures verified, ids expected vs seen: the run's deliveries as the receiver got them. */
  const audit = (requests: readonly ReceivedRequest[], expected: readonly string[]) => {
    const seen = new Map<string, number>();
    let badSignatures = 0;
    for (const r of requests) {
      const id = r.headers['x-svc-delivery'] as string;
      const hook = hooks[Number(/\/h(\d+)$/.exec(r.path)?.[1])]?.id;
      if (!hook || !verifySvcSignature(secretOf.get(hook)!, r.raw, r.headers['x-svc-signature'] as string)) badSignatures++;
      seen.set(id, (seen.get(id) ?? 0) + 1);
    }
    const lost = expected.filter((id) => !seen.has(id)).length;
    const duplicates = [...seen.values()].reduce((a, n) => a + n - 1, 0);
    return { expected: expected.length, received: requests.length, lost, duplicates, badSignatures };
  };
  const expectedIds = (events: readonly SampleAppend[]) => events.flatMap((e) => hooks.map((h) => deliveryId(e.event.id, h.id)));

  try {
    // Baseline: the burst's bodies, signed, straight to the receiver.
    const burst = Array.from({ length: BURST_EVENTS }, (_, n) => sampleSharesTransferred(1, n));
    const signed = burst.flatMap((e) =>
      hooks.map((h, i) => {
        const body = JSON.stringify({ event: 'shares_transferred', data: e.event.data });
        const headers = deliveryHeaders({
          secret: secretOf.get(h.id)!,
          event: 'shares_transferred',
          deliveryId: `base-${e.event.id}-${i}`,
          body,
          timestampSeconds: Math.floor(Date.now() / 1000),
        });
        return { headers, body };
      }),
    );
    const baseline = await bareSender(`${receiver.origin}/baseline`, receiver.cert, signed, CONCURRENCY);
    await receiver.take();

    // Burst.
    const t0 = Date.now();
    for (let i = 0; i < burst.length; i += 500) await append(burst.slice(i, i + 500));
    const burstRequests = await received(BURST_EVENTS * HOOKS);
    const burstMs = Math.max(...burstRequests.map((r) => r.receivedAt)) - t0;
    const burstDeliveries = burstRequests.length;
    const burstAudit = audit(burstRequests, expectedIds(burst));

    // Paced.
    const paced = Array.from({ length: PACED_RATE * PACED_SECONDS }, (_, n) => sampleSharesTransferred(2, n));
    const start = Date.now();
    for (let i = 0; i < paced.length; i++) {
      const due = start + (i * 1000) / PACED_RATE;
      if (due > Date.now()) await new Promise((r) => setTimeout(r, due - Date.now()));
      await append([paced[i]]);
    }
    const pacedRequests = await received(paced.length * HOOKS);
    const pacedAudit = audit(pacedRequests, expectedIds(paced));
    const latencies = pacedRequests
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
        receiver: 'local HTTPS (self-signed, keep-alive), same machine, a process of its own',
      },
      baseline: { what: 'the same signed bodies POSTed by a bare keep-alive HTTPS sender, same concurrency, no database', ...baseline },
      burst: {
        deliveries: burstDeliveries,
        ms: burstMs,
        deliveriesPerSecond: Math.round((burstDeliveries / burstMs) * 1000),
        ratioToBaseline: +(burstDeliveries / burstMs / (baseline.deliveries / baseline.ms)).toFixed(3),
        audit: burstAudit,
      },
      paced: {
        audit: pacedAudit,
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
