import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { createChainEventCatalog } from '@dob/domain';
import { createSqlEventStore, type EventStore } from '@dob/event-store';
import { type SqlDatabase } from '@dob/sql';
import { testDatabases } from '../../../libs/sql/src/testing/test-databases';
import { createNotifier, type Notifier } from '@dob/webhooks';
import { samplePoolInitialized, samplePoolRegistered, sampleSharesTransferred, type SampleAppend } from '../../../libs/webhooks/src/testing/sample-events';
import { startTestReceiver, type ReceivedRequest, type TestReceiver } from '../../../libs/webhooks/src/testing/https-receiver';
import { testCaller } from '../../../libs/webhooks/src/testing/test-caller';

// @octokit/webhooks-methods is ESM-only (exports without a require condition): import its file through a real
// dynamic import, which jest's CommonJS transform would otherwise rewrite into require().
const importEsm = new Function('p', 'return import(p)') as (
  p: string,
) => Promise<{ verify(secret: string, payload: string, signature: string): Promise<boolean> }>;
const octokit = () => importEsm(join(__dirname, '../../../node_modules/@octokit/webhooks-methods/dist-node/index.js'));

const SECRET = 'whsec_a1b2c3d4e5f6g7h8i9j0';
const FAST = [40, 40, 40, 40, 40];

async function until<T>(what: string, fn: () => Promise<T | undefined | false>, timeoutMs = 30_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v as T;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('notifier deliveries to a local HTTPS receiver (e2e, PostgreSQL, compressed retry schedule)', () => {
  const postgres = testDatabases().find((f) => f.name === 'postgres')!;
  let receiver: TestReceiver;
  let db: SqlDatabase;
  let store: EventStore;
  let notifier: Notifier;

  beforeAll(async () => {
    receiver = await startTestReceiver();
  });
  afterAll(() => receiver.close());
  beforeEach(async () => {
    receiver.requests.length = 0;
    receiver.respond = () => 200;
    db = await postgres.create();
    store = await createSqlEventStore(db, { catalog: createChainEventCatalog(), pollIntervalMs: 20 });
    notifier = await createNotifier({
      db,
      eventStore: store,
      secretKey: Buffer.alloc(32, 5),
      allowList: { hosts: ['localhost'] },
      ca: receiver.cert,
      retrySchedule: FAST,
      pollIntervalMs: 50,
    });
    await notifier.start();
  });
  afterEach(async () => {
    await notifier.stop();
    await store.close();
    await db.close();
  });

  const service = () => notifier.components.service;
  const register = (owner: string, path: string, events: string[]) =>
    service().register(testCaller(owner), { url: `${receiver.origin}${path}`, events, secret: SECRET });
  const append = async (items: SampleAppend[]) => {
    for (const i of items) await store.appendToStream(i.streamId, [i.event]);
  };
  const byPath = new Map<ReceivedRequest, string>();
  const requestsTo = (path: string) => receiver.requests.filter((r) => byPath.get(r) === path);
  const routes = (fn: (path: string, n: number) => number) => {
    const counts = new Map<string, number>();
    receiver.respond = (req, path) => {
      byPath.set(req, path);
      const n = (counts.get(path) ?? 0) + 1;
      counts.set(path, n);
      return fn(path, n);
    };
  };

  it('delivers signed bodies that @octokit/webhooks-methods and standardwebhooks verify over the raw bytes', async () => {
    routes(() => 200);
    const hook = await register('ak_1', '/ok', ['pool_created', 'shares_transferred']);
    await append([samplePoolRegistered(1), samplePoolInitialized(1), sampleSharesTransferred(1, 1)]);
    await until('2 deliveries', async () => requestsTo('/ok').length >= 2);
    const { verify } = await octokit();
    const wh = new Webhook(SECRET, { format: 'raw' });
    const seen: string[] = [];
    for (const r of requestsTo('/ok')) {
      const raw = r.raw.toString('utf8');
      const body = JSON.parse(raw);
      seen.push(body.event);
      expect(Object.keys(body)).toEqual(['event', 'timestamp', 'delivery_id', 'data']);
      expect(r.headers['content-type']).toBe('application/json');
      expect(r.headers['x-svc-event']).toBe(body.event);
      expect(r.headers['x-svc-delivery']).toBe(body.delivery_id);
      expect(body.delivery_id).toMatch(/^dlv_[0-9a-f]{32}$/);
      expect(r.headers['webhook-id']).toBe(body.delivery_id);
      expect(Number(r.headers['x-svc-timestamp'])).toBeCloseTo(Date.now() / 1000, -2);
      expect(r.headers['x-svc-signature']).toMatch(/^sha256=[0-9a-f]{64}$/);
      expect(await verify(SECRET, raw, r.headers['x-svc-signature'] as string)).toBe(true);
      expect(await verify('a-different-secret!!', raw, r.headers['x-svc-signature'] as string)).toBe(false);
      expect(wh.verify(raw, r.headers as Record<string, string>)).toEqual(body);
    }
    expect(seen.sort()).toEqual(['pool_created', 'shares_transferred']);
    const created = JSON.parse(
      requestsTo('/ok')
        .find((r) => r.headers['x-svc-event'] === 'pool_created')!
        .raw.toString(),
    );
    expect(created.data).toMatchObject({ pool_name: 'Pool 1', pool_ticker: 'P1', network_id: 9, access_type: 'p' });
    // The receiver has both requests before the notifier has recorded both answers (a CI run caught it between them).
    await until('both successes recorded', async () => (await notifier.health()).details.queue.delivered === 2);
    const [listed] = await service().list(testCaller('ak_1'));
    expect(listed).toMatchObject({ id: hook.id, is_active: true, failure_count: 0 });
    expect(listed.last_triggered_at).not.toBeNull();
    expect(await notifier.health()).toMatchObject({ status: 'up', ready: true, details: { queue: { pending: 0, delivered: 2, failed: 0 }, lastError: null } });
  });

  it('a receiver failing 6 times deactivates the webhook; re-enabling resets failure_count and delivers again', async () => {
    let failing = true;
    routes((path) => (path === '/down' && failing ? 503 : 200));
    const hook = await register('ak_2', '/down', ['shares_transferred']);
    await append([sampleSharesTransferred(2, 1)]);
    await until('deactivation', async () => !(await service().list(testCaller('ak_2')))[0].is_active);
    const tries = requestsTo('/down');
    expect(tries).toHaveLength(6); // the first attempt + 5 retries
    expect(new Set(tries.map((t) => t.headers['x-svc-delivery'])).size).toBe(1);
    const [dead] = await service().list(testCaller('ak_2'));
    expect(dead).toMatchObject({ is_active: false, failure_count: 6 });
    const log = await service().deliveries('ak_2', hook.id, 1, 20);
    expect(log.deliveries[0]).toMatchObject({ status: 'failed', attempt_count: 6 });
    expect((log.deliveries[0].attempts as { response_code: number }[]).map((a) => a.response_code)).toEqual([503, 503, 503, 503, 503, 503]);
    // Inactive: a new event is not delivered.
    await append([sampleSharesTransferred(2, 2)]);
    await notifier.waitUntilCaughtUp();
    await new Promise((r) => setTimeout(r, 300));
    expect(requestsTo('/down')).toHaveLength(6);

    failing = false;
    const back = await service().update('ak_2', hook.id, { is_active: true });
    expect(back.is_active).toBe(true);
    expect((await service().list(testCaller('ak_2')))[0]).toMatchObject({ is_active: true, failure_count: 0 });
    // Recovery: the failed delivery is redelivered on request, with its original id.
    await service().redeliver('ak_2', hook.id, log.deliveries[0].delivery_id as string);
    await until('redelivery', async () => requestsTo('/down').length >= 7);
    expect(requestsTo('/down')[6].headers['x-svc-delivery']).toBe(tries[0].headers['x-svc-delivery']);
  });

  it('a receiver failing 3 times then succeeding gets the delivery once more, with the same delivery id', async () => {
    routes((path, n) => (path === '/flaky' && n <= 3 ? 500 : 200));
    const hook = await register('ak_3', '/flaky', ['shares_transferred']);
    await append([sampleSharesTransferred(3, 1)]);
    await until('delivered', async () => (await service().deliveries('ak_3', hook.id, 1, 5)).deliveries[0]?.status === 'delivered');
    await new Promise((r) => setTimeout(r, 300)); // nothing further arrives
    const tries = requestsTo('/flaky');
    expect(tries).toHaveLength(4);
    expect(new Set(tries.map((t) => t.headers['x-svc-delivery'])).size).toBe(1);
    expect(new Set(tries.map((t) => t.raw.toString())).size).toBe(1); // identical body each time
    const log = await service().deliveries('ak_3', hook.id, 1, 5);
    expect((log.deliveries[0].attempts as { response_code: number }[]).map((a) => a.response_code)).toEqual([500, 500, 500, 200]);
    expect((await service().list(testCaller('ak_3')))[0]).toMatchObject({ is_active: true, failure_count: 0 });
  });

  it('treats a redirect as a failure and does not follow it', async () => {
    routes((path) => (path === '/moved' ? 302 : 200));
    const hook = await register('ak_4', '/moved', ['shares_transferred']);
    await append([sampleSharesTransferred(4, 1)]);
    await until('first attempt', async () => (await service().deliveries('ak_4', hook.id, 1, 5)).deliveries[0]?.attempt_count);
    const log = await service().deliveries('ak_4', hook.id, 1, 5);
    expect((log.deliveries[0].attempts as { response_code: number; error: string }[])[0]).toMatchObject({
      response_code: 302,
      error: expect.stringMatching(/redirect/),
    });
  });
});
