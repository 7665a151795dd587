import type { SecretBox } from '../secrets/secret-box';
import type { ClaimedDelivery, SqlDeliveryQueue } from '../store/delivery-queue';
import { DeliveryWorker } from './delivery-worker';
import type { SendResult, WebhookSender } from './https-sender';

const claim = (n: number): ClaimedDelivery => ({
  id: `dlv_${n}`,
  webhookId: 'wh_1',
  eventType: 'pool_created',
  body: '{}',
  url: 'https://receiver.test/hook',
  secretSealed: 'sealed',
  leaseToken: 'lease',
});

/** A queue with `due` rows to claim; records what the worker asks of it. */
function fakeQueue(due: number) {
  let next = 0;
  const calls = { claimLimits: [] as number[], released: [] as string[], recorded: [] as string[] };
  const queue = {
    async claimDue(_now: Date, limit: number) {
      calls.claimLimits.push(limit);
      const n = Math.min(limit, due - next);
      return Array.from({ length: n }, () => claim(next++));
    },
    async nextDueAt() {
      return null;
    },
    async recordSuccesses(items: readonly { claim: ClaimedDelivery }[]) {
      for (const i of items) calls.recorded.push(i.claim.id);
      return new Set(items.map((i) => i.claim.id));
    },
    async recordFailure() {
      return 'retry' as const;
    },
    async release(claims: readonly ClaimedDelivery[]) {
      calls.released.push(...claims.map((c) => c.id));
    },
  };
  return { queue: queue as unknown as SqlDeliveryQueue, calls };
}

/** A sender whose sends wait until `open()`. */
function gatedSender() {
  let open!: () => void;
  const gate = new Promise<void>((r) => (open = r));
  const sent: string[] = [];
  const sender: WebhookSender = {
    async send(_url, headers): Promise<SendResult> {
      sent.push(headers['X-Svc-Delivery'] ?? headers['x-svc-delivery'] ?? '?');
      await gate;
      return { ok: true, responseCode: 200, durationMs: 1, error: null };
    },
  };
  return { sender, sent, open: () => open() };
}

const secrets = { open: () => 'sixteen-chars-ok!' } as unknown as SecretBox;
const until = async (ok: () => boolean) => {
  for (let i = 0; i < 200 && !ok(); i++) await new Promise((r) => setTimeout(r, 5));
  expect(ok()).toBe(true);
};

describe('DeliveryWorker', () => {
  it('claims a lane set ahead, fills lanes as they free, and records every success', async () => {
    const { queue, calls } = fakeQueue(10);
    const s = gatedSender();
    const worker = new DeliveryWorker({ queue, sender: s.sender, secrets, concurrency: 2, pollIntervalMs: 20 });
    worker.start();
    await until(() => s.sent.length === 2);
    expect(calls.claimLimits[0]).toBe(4); // two lanes sending, two more claimed and waiting
    expect(worker.stats().inFlight).toBe(2);
    s.open();
    await until(() => calls.recorded.length === 10);
    await worker.stop();
    expect(new Set(calls.recorded).size).toBe(10);
    expect(worker.stats().delivered).toBe(10);
  });

  it('gives back the leases of claimed deliveries it never sent when it stops', async () => {
    const { queue, calls } = fakeQueue(10);
    const s = gatedSender();
    const worker = new DeliveryWorker({ queue, sender: s.sender, secrets, concurrency: 2, pollIntervalMs: 20 });
    worker.start();
    await until(() => s.sent.length === 2);
    const stopping = worker.stop();
    s.open(); // the two being sent finish
    await stopping;
    expect(calls.released).toEqual(['dlv_2', 'dlv_3']);
    expect(calls.recorded.sort()).toEqual(['dlv_0', 'dlv_1']);
  });
});
