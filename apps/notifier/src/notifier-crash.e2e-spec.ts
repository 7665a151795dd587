import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createChainEventCatalog } from '@dob/domain';
import { createSqlEventStore, type EventStore } from '@dob/event-store';
import { createPostgresDatabase, type SqlDatabase } from '@dob/sql';
import { TEST_POSTGRES_URL, testSchemaName } from '../../../libs/sql/src/testing/test-databases';
import { createWebhookComponents, deliveryId, verifySvcSignature, type WebhookComponents } from '@dob/webhooks';
import { sampleSharesTransferred } from '../../../libs/webhooks/src/testing/sample-events';
import { startTestReceiver, type TestReceiver } from '../../../libs/webhooks/src/testing/https-receiver';
import { testCaller } from '../../../libs/webhooks/src/testing/test-caller';

const ROOT = join(__dirname, '../../..');
const EVENTS = 1000;
const HOOKS = 5;
const CONCURRENCY = 16;
const SECRET_KEY = randomBytes(32).toString('hex');

async function until(what: string, fn: () => Promise<boolean> | boolean, timeoutMs = 120_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await fn())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/**
 * Durability across a crash: a notifier child process is SIGKILLed in the middle of a burst of 1,000 events to 5
 * webhooks; after a restart every one of the 5,000 deliveries has arrived at least once, and the only repeats are
 * deliveries in flight at the kill: being sent, or sent with their success waiting for the next group commit — at
 * most twice the worker's concurrency (docs/webhooks.md "Delivery").
 */
describe('notifier killed mid-burst (SIGKILL child, PostgreSQL, local HTTPS receiver)', () => {
  const schema = testSchemaName();
  let db: SqlDatabase;
  let store: EventStore;
  let wh: WebhookComponents;
  let receiver: TestReceiver;
  let caFile: string;
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    receiver = await startTestReceiver();
    caFile = join(mkdtempSync(join(tmpdir(), 'wh-ca-')), 'ca.pem');
    writeFileSync(caFile, receiver.cert);
    db = await createPostgresDatabase({ connectionString: TEST_POSTGRES_URL, schema });
    store = await createSqlEventStore(db, { catalog: createChainEventCatalog() });
    wh = await createWebhookComponents({ db, secretKey: Buffer.from(SECRET_KEY, 'hex'), allowList: { hosts: ['localhost'] } });
  });
  afterAll(async () => {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    await store.close();
    await db.close();
    await receiver.close();
  });

  const startChild = () => {
    const child = spawn(process.execPath, ['-r', join(__dirname, '../../../scripts/register.js'), join(__dirname, 'testing/notifier-child.ts')], {
      cwd: ROOT,
      env: {
        ...process.env,
        NODE_OPTIONS: '',
        DATABASE_URL: TEST_POSTGRES_URL,
        SCHEMA: schema,
        WEBHOOK_SECRET_KEY: SECRET_KEY,
        WEBHOOK_SSRF_ALLOW: 'localhost',
        WEBHOOK_CA_FILE: caFile,
        WEBHOOK_RETRY_SCHEDULE_MS: '50,50,50,50,50',
        WEBHOOK_CONCURRENCY: String(CONCURRENCY),
        // Long enough that no lease runs out while its delivery is merely slow (a CI run under load once stalled past
        // 1.5 s and its own worker re-claimed rows still in flight: 45 repeats), short enough that the restarted child
        // soon takes what the killed one held. So every repeat counted below is one the kill caused.
        WEBHOOK_LEASE_MS: '5000',
        // The local receiver answers in milliseconds; the lease must outlast a send's deadline and its write.
        WEBHOOK_SEND_TIMEOUT_MS: '2000',
        WEBHOOK_POLL_MS: '50',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    let stderr = '';
    child.stderr!.on('data', (d) => (stderr += d));
    const started = new Promise<void>((resolve, reject) => {
      child.stdout!.on('data', (d) => String(d).includes('started') && resolve());
      child.on('exit', (code) => reject(new Error(`child exited ${code}: ${stderr}`)));
    });
    return { child, started, stderr: () => stderr };
  };

  it('delivers every one of 5,000 deliveries at least once after a SIGKILL and restart', async () => {
    const hooks: { id: string }[] = [];
    for (let i = 0; i < HOOKS; i++) {
      hooks.push(
        await wh.service.register(testCaller(`ak_${i}`), {
          url: `${receiver.origin}/h${i}`,
          events: ['shares_transferred'],
          secret: `secret-of-hook-${i}-xyz`,
        }),
      );
    }
    const first = startChild();
    await first.started;

    // The burst: 1,000 events appended in batches while the notifier fans out and delivers.
    const events = Array.from({ length: EVENTS }, (_, n) => sampleSharesTransferred(1, n));
    for (let i = 0; i < EVENTS; i += 100) {
      await store.appendToStream(
        events[i].streamId,
        events.slice(i, i + 100).map((e) => e.event),
      );
    }
    await until('the burst under way', () => receiver.requests.length >= 1200);
    const exited = new Promise((r) => first.child.once('exit', (code, signal) => r({ code, signal })));
    first.child.kill('SIGKILL');
    expect(await exited).toEqual({ code: null, signal: 'SIGKILL' });
    const atKill = receiver.requests.length;
    expect(atKill).toBeLessThan(EVENTS * HOOKS); // killed mid-burst, not after

    const second = startChild();
    await second.started;
    const expected = new Set(events.flatMap((e) => hooks.map((h) => deliveryId(e.event.id, h.id))));
    await until('every delivery received', () => new Set(receiver.requests.map((r) => r.headers['x-svc-delivery'] as string)).size >= expected.size);
    await until('queue drained', async () => (await wh.queue.counts()).delivered === EVENTS * HOOKS);
    second.child.kill('SIGTERM');

    const received = receiver.requests.map((r) => r.headers['x-svc-delivery'] as string);
    const distinct = new Set(received);
    expect(distinct).toEqual(expected); // none lost, none unexpected
    const repeats = received.length - distinct.size;
    expect(repeats).toBeLessThanOrEqual(2 * CONCURRENCY); // only deliveries in flight at the kill repeat
    expect(await wh.queue.counts()).toEqual({ pending: 0, delivered: EVENTS * HOOKS, failed: 0 });

    // Each body is signed with its own webhook's secret.
    for (const r of receiver.requests.slice(0, 50)) {
      const body = JSON.parse(r.raw.toString());
      const owner = hooks.findIndex((h) => events.some((e) => deliveryId(e.event.id, h.id) === body.delivery_id));
      expect(verifySvcSignature(`secret-of-hook-${owner}-xyz`, r.raw, r.headers['x-svc-signature'] as string)).toBe(true);
    }
  });
});
