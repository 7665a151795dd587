import type { SecretBox } from '../secrets/secret-box';
import { svcSignature } from '../signing/delivery-signatures';
import type { ClaimedDelivery, SqlDeliveryQueue } from '../store/delivery-queue';
import { DeliveryWorker } from './delivery-worker';
import type { SendResult, WebhookSender } from './https-sender';

const claim = (n: number, of: Partial<ClaimedDelivery> = {}): ClaimedDelivery => ({
  id: `dlv_${n}`,
  webhookId: 'wh_1',
  eventType: 'pool_created',
  body: '{}',
  url: 'https://receiver.test/hook',
  secretSealed: 'sealed',
  leaseToken: 'lease',
  leaseUntil: new Date(Date.now() + 30_000),
  ...of,
});

/**
 * A queue with `due` rows to claim (the n-th shaped by `shape`), each leased until the claim's time + leaseMs;
 * released rows are claimed again first. Records what the worker asks of it.
 */
function fakeQueue(due: number, shape: (n: number) => Partial<ClaimedDelivery> = () => ({})) {
  let next = 0;
  const given: number[] = [];
  const calls = { claimLimits: [] as number[], released: [] as string[], recorded: [] as string[] };
  const queue = {
    async claimDue(now: Date, limit: number, leaseMs: number) {
      calls.claimLimits.push(limit);
      const ks = given.splice(0, limit);
      while (ks.length < limit && next < due) ks.push(next++);
      return ks.map((k) => claim(k, { leaseUntil: new Date(now.getTime() + leaseMs), ...shape(k) }));
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
      given.push(...claims.map((c) => Number(c.id.slice('dlv_'.length))));
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

  it('opens each webhook secret once, a rotated one anew, and signs every delivery with its own webhook secret', async () => {
    // Deliveries of two webhooks; wh_2's secret is rotated half-way (a new sealed text); one sealed text does not open.
    const sealedOf = (n: number) => (n % 2 === 0 ? 'sealed-a' : n < 6 ? 'sealed-b1' : n === 9 ? 'sealed-broken' : 'sealed-b2');
    const { queue, calls } = fakeQueue(10, (n) => ({ webhookId: n % 2 === 0 ? 'wh_1' : 'wh_2', secretSealed: sealedOf(n) }));
    const opened: string[] = [];
    const plain: Record<string, string> = { 'sealed-a': 'secret-of-wh1-aaaa', 'sealed-b1': 'secret-of-wh2-bbb1', 'sealed-b2': 'secret-of-wh2-bbb2' };
    const counting = {
      open(sealed: string, context: string) {
        opened.push(`${context}:${sealed}`);
        if (!plain[sealed]) throw new Error('unsupported state or unable to authenticate data');
        return plain[sealed];
      },
    } as unknown as SecretBox;
    const signed = new Map<string, string>();
    const sender: WebhookSender = {
      async send(_url, headers, body): Promise<SendResult> {
        signed.set(headers['x-svc-delivery']!, headers['x-svc-signature']!);
        expect(body).toBe('{}');
        return { ok: true, responseCode: 200, durationMs: 1, error: null };
      },
    };
    const worker = new DeliveryWorker({ queue, sender, secrets: counting, concurrency: 1, pollIntervalMs: 20 });
    worker.start();
    await until(() => calls.recorded.length === 9);
    await worker.stop();
    // The broken one is tried, fails to open and is not remembered; the others open once each.
    expect(opened.filter((o) => o !== 'wh_2:sealed-broken').sort()).toEqual(['wh_1:sealed-a', 'wh_2:sealed-b1', 'wh_2:sealed-b2']);
    expect(signed.has('dlv_9')).toBe(false);
    for (let n = 0; n < 9; n++) expect(signed.get(`dlv_${n}`)).toBe(svcSignature(plain[sealedOf(n)]!, '{}'));
  });

  it('gives back, instead of sending, a claimed delivery whose lease no longer covers a send and its write', async () => {
    // One lane, two claimed at once (leases of 30 s); each send takes 19.5 s of the clock, so the one waiting behind
    // it would start with 10.5 s of lease left: not more than the 10 s deadline + 1 s for the write.
    const { queue, calls } = fakeQueue(3);
    let clock = Date.parse('2026-12-08T00:00:00Z');
    const sends: { id: string; leaseLeftMs: number }[] = [];
    const leases = new Map<string, number>();
    const sender: WebhookSender = {
      async send(_url, headers): Promise<SendResult> {
        const id = headers['x-svc-delivery']!;
        sends.push({ id, leaseLeftMs: leases.get(id)! - clock });
        clock += 19_500;
        return { ok: true, responseCode: 200, durationMs: 19_500, error: null };
      },
    };
    const watched = {
      ...queue,
      claimDue: async (now: Date, limit: number, leaseMs: number) => {
        const claimed = await queue.claimDue(now, limit, leaseMs);
        for (const c of claimed) leases.set(c.id, c.leaseUntil.getTime());
        return claimed;
      },
    } as unknown as SqlDeliveryQueue;
    const worker = new DeliveryWorker({ queue: watched, sender, secrets, concurrency: 1, leaseMs: 30_000, pollIntervalMs: 5, now: () => new Date(clock) });
    worker.start();
    await until(() => calls.recorded.length === 3);
    await worker.stop();
    expect(calls.released).toEqual(['dlv_1', 'dlv_2']); // each claimed behind a send, given back, claimed anew and sent
    expect(sends.map((s) => s.id)).toEqual(['dlv_0', 'dlv_1', 'dlv_2']);
    for (const s of sends) expect(s.leaseLeftMs).toBeGreaterThan(11_000);
  });

  it('refuses a lease that does not outlast a send and its write', () => {
    const { queue } = fakeQueue(0);
    expect(() => new DeliveryWorker({ queue, sender: gatedSender().sender, secrets, leaseMs: 5_000 })).toThrow(/must exceed the send timeout/);
    expect(() => new DeliveryWorker({ queue, sender: gatedSender().sender, secrets, leaseMs: 5_000, sendTimeoutMs: 2_000 })).not.toThrow();
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
