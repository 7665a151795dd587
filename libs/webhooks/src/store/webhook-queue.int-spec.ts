import { AppError } from '@dob/domain';
import { type SqlDatabase } from '@dob/sql';
import { testDatabases } from '../../../sql/src/testing/test-databases';
import { deliveryId } from '../ids';
import { createWebhookComponents, type WebhookComponents } from '../notifier';
import { SqlDeliveryQueue } from './delivery-queue';
import { testCaller } from '../testing/test-caller';

const noSend = { send: async () => ({ ok: true, responseCode: 200, durationMs: 1, error: null }) };
const SCHEDULE = [10, 20, 30, 40, 50];

describe.each(testDatabases())('webhook store and delivery queue on $name', (factory) => {
  let db: SqlDatabase;
  let wh: WebhookComponents;
  const body = (url = 'https://receiver.test/hook') => ({ url, events: ['pool_created'], secret: 'sixteen-chars-ok!' });

  beforeEach(async () => {
    db = await factory.create();
    wh = await createWebhookComponents({ db, secretKey: Buffer.alloc(32, 3), allowList: { hosts: ['receiver.test'] }, sender: noSend });
  });
  afterEach(() => db.close());

  const enqueue = async (webhookId: string, n: number, at = new Date(0), from = 0) => {
    const rows = Array.from({ length: n }, (_, k) => k + from).map((i) => ({
      id: deliveryId(`ev-${i}`, webhookId),
      webhookId,
      eventId: `ev-${i}`,
      eventType: 'pool_created',
      body: JSON.stringify({ event: 'pool_created', i }),
    }));
    return db.transaction((tx) => SqlDeliveryQueue.enqueue(tx, rows, at));
  };

  it('admits at most 5 webhooks per key under 20 concurrent registrations, and frees a slot on delete', async () => {
    const results = await Promise.allSettled(Array.from({ length: 20 }, () => wh.service.register(testCaller('ak_x'), body())));
    const ok = results.filter((r) => r.status === 'fulfilled');
    const refused = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(ok).toHaveLength(5);
    expect(refused).toHaveLength(15);
    for (const r of refused) expect(r.reason).toMatchObject({ code: 'VALIDATION_ERROR', message: expect.stringMatching(/at most 5/) });
    expect(await wh.service.list(testCaller('ak_x'))).toHaveLength(5);
    expect(await wh.service.list(testCaller('ak_y'))).toHaveLength(0);
    const first = (ok[0] as PromiseFulfilledResult<{ id: string }>).value.id;
    await expect(wh.service.remove(testCaller('ak_y'), first)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await wh.service.remove(testCaller('ak_x'), first);
    await expect(wh.service.register(testCaller('ak_x'), body())).resolves.toMatchObject({ is_active: true });
    await expect(wh.service.register(testCaller('ak_x'), body())).rejects.toBeInstanceOf(AppError);
  });

  it('stores the secret sealed and never returns it', async () => {
    const w = await wh.service.register(testCaller('ak_s'), body());
    expect(JSON.stringify(w)).not.toContain('sixteen-chars-ok!');
    const { rows } = await db.query<{ secret_sealed: string }>(`SELECT secret_sealed FROM webhooks WHERE id = $1`, [w.id]);
    expect(rows[0].secret_sealed).not.toContain('sixteen');
    expect(wh.secrets.open(rows[0].secret_sealed, w.id)).toBe('sixteen-chars-ok!');
  });

  it('two concurrent claimers never take the same row; a lost lease cannot record', async () => {
    const w = await wh.service.register(testCaller('ak_c'), body());
    expect(await enqueue(w.id, 40)).toBe(40);
    expect(await enqueue(w.id, 40)).toBe(0); // same ids: idempotent
    const now = new Date(1000);
    const [a, b] = await Promise.all([wh.queue.claimDue(now, 25, 60_000), wh.queue.claimDue(now, 25, 60_000)]);
    const ids = [...a, ...b].map((c) => c.id);
    expect(ids).toHaveLength(40);
    expect(new Set(ids).size).toBe(40);
    expect(await wh.queue.claimDue(now, 10, 60_000)).toHaveLength(0); // all leased
    // After the lease expires (a crashed worker), the row is claimable again, and the old lease cannot record.
    const again = await wh.queue.claimDue(new Date(1000 + 60_001), 1, 60_000);
    expect(again).toHaveLength(1);
    const stale = [...a, ...b].find((c) => c.id === again[0].id)!;
    expect(await wh.queue.recordSuccess(stale, { at: new Date(2000), responseCode: 200, durationMs: 3, error: null })).toBe(false);
    expect(await wh.queue.recordSuccess(again[0], { at: new Date(2000), responseCode: 200, durationMs: 3, error: null })).toBe(true);
  });

  it('retries on the schedule, deactivates after the 5th retry fails, and re-enabling resets failure_count', async () => {
    const w = await wh.service.register(testCaller('ak_r'), body());
    const inactiveBefore = await wh.webhooks.countInactive(); // the webhooks_inactive gauge
    await enqueue(w.id, 1);
    await enqueue(w.id, 1, new Date(9e12), 1); // pending far in the future: fails with the webhook's deactivation
    let t = 1000;
    const outcomes: string[] = [];
    const dueTimes: number[] = [];
    for (let i = 0; i < 6; i++) {
      const [c] = await wh.queue.claimDue(new Date(t), 1, 5000);
      expect(c).toBeDefined();
      outcomes.push(await wh.queue.recordFailure(c, { at: new Date(t), responseCode: 500, durationMs: 2, error: 'HTTP 500' }, SCHEDULE));
      const next = await db.query<{ next_attempt_at: Date | string | null }>(`SELECT next_attempt_at FROM webhook_deliveries WHERE id = $1`, [c.id]);
      const at = next.rows[0].next_attempt_at;
      if (at) {
        dueTimes.push(new Date(at).getTime() - t);
        t = new Date(at).getTime();
        expect(await wh.queue.claimDue(new Date(t - 1), 1, 5000)).toHaveLength(0); // not due before its time
      }
    }
    expect(outcomes).toEqual(['retry', 'retry', 'retry', 'retry', 'retry', 'failed']);
    expect(dueTimes).toEqual(SCHEDULE);
    const [hook] = await wh.service.list(testCaller('ak_r'));
    expect(hook).toMatchObject({ is_active: false, failure_count: 6 });
    expect(await wh.webhooks.countInactive()).toBe(inactiveBefore + 1);
    expect(hook.last_triggered_at).not.toBeNull();
    expect(await wh.queue.counts()).toEqual({ pending: 0, delivered: 0, failed: 2 });
    const log = await wh.service.deliveries('ak_r', w.id, 1, 20);
    expect(log.total).toBe(2);
    const exhausted = log.deliveries.find((d) => (d.attempts as unknown[]).length === 6)!;
    expect(exhausted).toMatchObject({ status: 'failed', attempt_count: 6 });
    expect((exhausted.attempts as { response_code: number }[]).every((a) => a.response_code === 500)).toBe(true);

    // Redelivery needs an active webhook; re-enabling resets failure_count.
    await expect(wh.service.redeliver('ak_r', w.id, exhausted.delivery_id as string)).rejects.toMatchObject({ code: 'CONFLICT' });
    const back = await wh.service.update('ak_r', w.id, { is_active: true });
    expect(back.is_active).toBe(true);
    expect(await wh.webhooks.countInactive()).toBe(inactiveBefore);
    expect((await wh.service.list(testCaller('ak_r')))[0].failure_count).toBe(0);
    await wh.service.redeliver('ak_r', w.id, exhausted.delivery_id as string);
    const [c] = await wh.queue.claimDue(new Date(), 5, 5000);
    expect(c.id).toBe(exhausted.delivery_id);
    expect(await wh.queue.recordSuccess(c, { at: new Date(), responseCode: 204, durationMs: 1, error: null })).toBe(true);
    const after = await wh.service.deliveries('ak_r', w.id, 1, 20);
    expect(after.deliveries.find((d) => d.delivery_id === c.id)).toMatchObject({ status: 'delivered', attempt_count: 7 });
    await expect(wh.service.redeliver('ak_other', w.id, c.id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(wh.service.redeliver('ak_r', w.id, 'dlv_nope')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('a success resets the consecutive failure count', async () => {
    const w = await wh.service.register(testCaller('ak_f'), body());
    await enqueue(w.id, 3);
    const cs = await wh.queue.claimDue(new Date(1000), 3, 5000);
    await wh.queue.recordFailure(cs[0], { at: new Date(1000), responseCode: null, durationMs: 10_000, error: 'timeout' }, SCHEDULE);
    await wh.queue.recordFailure(cs[1], { at: new Date(1000), responseCode: 503, durationMs: 5, error: 'HTTP 503' }, SCHEDULE);
    expect((await wh.service.list(testCaller('ak_f')))[0].failure_count).toBe(2);
    await wh.queue.recordSuccess(cs[2], { at: new Date(1001), responseCode: 200, durationMs: 5, error: null });
    expect((await wh.service.list(testCaller('ak_f')))[0].failure_count).toBe(0);
  });
});
