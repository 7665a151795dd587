import { SecretMismatchError } from '@dob/runtime';
import { type SqlDatabase } from '@dob/sql';
import { testDatabases } from '../../../sql/src/testing/test-databases';
import { deliveryId } from '../ids';
import { createWebhookComponents, type WebhookComponents } from '../notifier';
import { DestinationGuard } from '../ssrf/destination-guard';
import { SqlDeliveryQueue, type DeliveryView } from '../store/delivery-queue';
import { startTestReceiver, type TestReceiver } from '../testing/https-receiver';
import { DeliveryWorker } from './delivery-worker';
import type { FailureReason } from './failure-reason';
import { createHttpsSender, type WebhookSender } from './https-sender';
import { testCaller } from '../testing/test-caller';

const SCHEDULE = [10, 10, 10, 10, 10];
const KEY_A = Buffer.alloc(32, 0xa);
const KEY_B = Buffer.alloc(32, 0xb);

async function eventually<T>(read: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await read();
    if (ok(v)) return v;
    if (Date.now() > deadline) throw new Error(`not reached within ${timeoutMs} ms: ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe.each(testDatabases())('deliveries that fail before sending, on $name', (factory) => {
  let db: SqlDatabase;
  let receiver: TestReceiver;
  const workers: DeliveryWorker[] = [];

  beforeAll(async () => {
    receiver = await startTestReceiver();
  });
  afterAll(() => receiver.close());
  beforeEach(async () => {
    db = await factory.create();
  });
  afterEach(async () => {
    for (const w of workers.splice(0)) await w.stop();
    await db.close();
  });

  /** Registers a webhook on `url` (through a permissive guard), queues one delivery and runs a worker on `sender`. */
  async function deliverOnce(url: string, sender: (wh: WebhookComponents) => WebhookSender, corrupt = false) {
    const wh = await createWebhookComponents({ db, secretKey: KEY_A, allowList: { hosts: ['localhost', 'receiver.test'] }, ca: receiver.cert });
    const w = await wh.service.register(testCaller('ak_1'), { url, events: ['pool_created'], secret: 'sixteen-chars-ok!' });
    if (corrupt) await db.query(`UPDATE webhooks SET secret_sealed = $2 WHERE id = $1`, [w.id, 'v1.AAAAAAAAAAAAAAAA.AAAAAAAAAAAAAAAAAAAAAA.AAAA']);
    const id = deliveryId('ev-1', w.id);
    await db.transaction((tx) =>
      SqlDeliveryQueue.enqueue(tx, [{ id, webhookId: w.id, eventId: 'ev-1', eventType: 'pool_created', body: '{"event":"pool_created"}' }], new Date()),
    );
    const worker = new DeliveryWorker({ queue: wh.queue, sender: sender(wh), secrets: wh.secrets, schedule: SCHEDULE, pollIntervalMs: 20 });
    workers.push(worker);
    worker.start();
    const delivery = await eventually(
      async () => (await wh.queue.listForWebhook(w.id, 1, 10)).deliveries[0],
      (d: DeliveryView) => d.status !== 'pending',
    );
    const { rows } = await db.query<{ is_active: boolean; failure_count: number }>(`SELECT is_active, failure_count FROM webhooks WHERE id = $1`, [w.id]);
    return { delivery, webhook: rows[0], stats: worker.stats() };
  }

  const expectDeactivatedBy = (r: Awaited<ReturnType<typeof deliverOnce>>, reason: FailureReason, error: RegExp) => {
    expect(r.delivery.status).toBe('failed');
    expect(r.delivery.attempts).toHaveLength(SCHEDULE.length + 1);
    for (const a of r.delivery.attempts) expect(a).toMatchObject({ responseCode: null, error: expect.stringMatching(error) });
    expect(r.webhook).toMatchObject({ is_active: false, failure_count: SCHEDULE.length + 1 });
    expect(r.stats.failedAttempts).toBe(SCHEDULE.length + 1);
    expect(r.stats.failedAttemptsByReason[reason]).toBe(SCHEDULE.length + 1);
    expect(r.stats.lastError).toBe(`deliver ${r.delivery.id}: ${r.delivery.attempts.at(-1)!.error}`);
  };

  it('an undecryptable secret is a logged, counted attempt and deactivates the webhook after the schedule', async () => {
    const r = await deliverOnce(`${receiver.origin}/hook`, (wh) => wh.sender, true);
    expectDeactivatedBy(r, 'decrypt', /^decrypt: the webhook secret does not open/);
    expect(receiver.requests).toHaveLength(0);
  });

  it('a DNS failure, a refusal at connect and a TLS failure are attempts with their reason', async () => {
    const noDns = createHttpsSender({
      guard: new DestinationGuard({}, async () => {
        throw Object.assign(new Error('getaddrinfo ENOTFOUND receiver.test'), { code: 'ENOTFOUND' });
      }),
    });
    expectDeactivatedBy(await deliverOnce('https://receiver.test/hook', () => noDns), 'dns', /^dns: getaddrinfo ENOTFOUND/);
    await db.close();

    db = await factory.create();
    // Registered while the name resolved publicly; at connect it resolves to loopback (DNS rebinding).
    const rebound = createHttpsSender({ guard: new DestinationGuard({}, async () => [{ address: '127.0.0.1', family: 4 }]) });
    expectDeactivatedBy(await deliverOnce('https://receiver.test/hook', () => rebound), 'ssrf', /^ssrf: url host receiver\.test resolves to .*loopback/);
    await db.close();

    db = await factory.create();
    const untrusted = (wh: WebhookComponents) => createHttpsSender({ guard: wh.guard }); // the receiver's CA not given
    expectDeactivatedBy(await deliverOnce(`${receiver.origin}/hook`, untrusted), 'tls', /^tls: /);
    expect(receiver.requests).toHaveLength(0);
  });

  it('refuses a second key on data sealed with the first, naming WEBHOOK_SECRET_KEY', async () => {
    const a = await createWebhookComponents({ db, secretKey: KEY_A, allowList: { hosts: ['receiver.test'] } });
    await a.service.register(testCaller('ak_1'), { url: 'https://receiver.test/hook', events: ['pool_created'], secret: 'sixteen-chars-ok!' });
    await expect(createWebhookComponents({ db, secretKey: KEY_B })).rejects.toThrow(SecretMismatchError);
    await expect(createWebhookComponents({ db, secretKey: KEY_B })).rejects.toThrow(/^WEBHOOK_SECRET_KEY is not the key/);
    await expect(createWebhookComponents({ db, secretKey: KEY_A })).resolves.toBeDefined();

    // Data from before fingerprints were kept: the stored secrets themselves decide.
    await db.query(`DELETE FROM secret_fingerprints`);
    await expect(createWebhookComponents({ db, secretKey: KEY_B })).rejects.toThrow(/unrecorded/);
    await createWebhookComponents({ db, secretKey: KEY_A });
    const { rows } = await db.query(`SELECT name FROM secret_fingerprints`);
    expect(rows).toEqual([{ name: 'webhook_secret_key' }]);
  });
});
