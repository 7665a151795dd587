import { randomUUID } from 'node:crypto';
import { createSqlEventStore, type EventStore } from '@dob/event-store';
import { ProjectionRunner, createSqlReadModelStore, type SqlProjectionDefinition } from '@dob/projections';
import { systemEventCatalog } from '@dob/runtime';
import { type SqlDatabase } from '@dob/sql';
import { testDatabases } from '../../../sql/src/testing/test-databases';
import { createWebhookComponents, type WebhookComponents } from '../notifier';
import { saleAddress } from '@dob/domain';
import { createFanoutProjection } from './fanout.projection';
import {
  sampleAccount,
  sampleContract,
  sampleListingCreated,
  sampleListingSold,
  samplePoolInitialized,
  samplePoolRegistered,
  sampleSharesTransferred,
  type SampleAppend,
} from '../testing/sample-events';
import { testCaller } from '../testing/test-caller';

const noSend = { send: async () => ({ ok: true, responseCode: 200, durationMs: 0, error: null }) };

describe.each(testDatabases())('webhook fan-out on $name', (factory) => {
  let db: SqlDatabase;
  let store: EventStore;
  let wh: WebhookComponents;
  const runners: ProjectionRunner<SqlProjectionDefinition>[] = [];

  const append = async (items: SampleAppend[]) => {
    for (const i of items) await store.appendToStream(i.streamId, [i.event]);
  };
  const runFanout = async () => {
    const r = new ProjectionRunner<SqlProjectionDefinition>(store, createSqlReadModelStore(db), [createFanoutProjection()], { pollIntervalMs: 20 });
    runners.push(r);
    await r.start();
    await r.waitUntilCaughtUp(30_000);
    return r;
  };
  const register = (owner: string, events: string[]) =>
    wh.service.register(testCaller(owner), { url: 'https://receiver.test/hook', events, secret: 'a-very-long-secret-value' });
  const deliveries = async () =>
    (
      await db.query<{ id: string; webhook_id: string; event_type: string; body: string }>(
        `SELECT id, webhook_id, event_type, body FROM webhook_deliveries ORDER BY id`,
      )
    ).rows;

  beforeEach(async () => {
    db = await factory.create();
    store = await createSqlEventStore(db, { catalog: systemEventCatalog(), pollIntervalMs: 20 });
    wh = await createWebhookComponents({ db, secretKey: Buffer.alloc(32, 1), allowList: { hosts: ['receiver.test'] }, sender: noSend });
  });
  afterEach(async () => {
    for (const r of runners.splice(0)) await r.stop();
    await store.close();
    await db.close();
  });

  it('enqueues one delivery per (event, active subscribed webhook), exactly once across restarts', async () => {
    const before = await register('ak_early', ['shares_transferred']);
    await append([samplePoolRegistered(1), samplePoolInitialized(1)]);
    const a = await register('ak_a', ['pool_created', 'shares_transferred']);
    const b = await register('ak_b', ['shares_transferred']);
    const off = await register('ak_c', ['shares_transferred']);
    await wh.service.update('ak_c', off.id, { is_active: false });
    const other = await register('ak_d', ['marketplace_sale_completed']);
    await append(Array.from({ length: 30 }, (_, n) => sampleSharesTransferred(1, n)));

    const first = await runFanout();
    const rows = await deliveries();
    const by = (id: string) => rows.filter((r) => r.webhook_id === id);
    // `before` existed before the pool events too; a, b were registered after pool_created's event was recorded.
    expect(by(before.id)).toHaveLength(30);
    expect(by(a.id)).toHaveLength(30);
    expect(by(b.id)).toHaveLength(30);
    expect(by(off.id)).toHaveLength(0);
    expect(by(other.id)).toHaveLength(0);
    expect(new Set(rows.map((r) => r.id)).size).toBe(rows.length);
    const body = JSON.parse(by(a.id)[0].body);
    expect(body).toMatchObject({ event: 'shares_transferred', delivery_id: by(a.id)[0].id, data: { pool_name: 'Pool 1', network_id: 9 } });
    expect(Object.keys(body)).toEqual(['event', 'timestamp', 'delivery_id', 'data']);

    // Restart: a new runner resumes from the checkpoint; nothing is enqueued twice.
    await first.stop();
    await runFanout();
    expect(await deliveries()).toHaveLength(rows.length);

    // Rebuild from START (blue/green): deterministic ids make the replay a no-op for the queue.
    await runners[runners.length - 1].rebuild('webhook_fanout');
    expect(await deliveries()).toHaveLength(rows.length);
  });

  it("ends a revoked key's webhooks: queued deliveries failed, nothing more queued; the wallet's other keys list and delete them", async () => {
    const wallet = sampleAccount(70);
    const keyA = { keyId: 'ak_0000000000000000000000000A', wallet };
    const keyB = { keyId: 'ak_0000000000000000000000000B', wallet };
    const hook = (caller: typeof keyA) =>
      wh.service.register(caller, { url: 'https://receiver.test/hook', events: ['shares_transferred'], secret: 'a-very-long-secret-value' });
    const a = await hook(keyA);
    const b = await hook(keyB);
    await append([samplePoolRegistered(7), samplePoolInitialized(7), sampleSharesTransferred(7, 1), sampleSharesTransferred(7, 2)]);
    await (await runFanout()).stop();
    const revoked = { keyId: keyA.keyId, wallet, at: new Date() };
    await store.appendToStream(`wallet-${wallet}`, [
      { id: randomUUID(), type: 'ApiKeyRevoked', version: 1, data: { wallet, key_id: revoked.keyId, revoked_at: revoked.at.toISOString() } },
    ]);
    await append([sampleSharesTransferred(7, 3), sampleSharesTransferred(7, 4)]);
    await runFanout(); // resumes from the checkpoint: the revocation, then two more transfers

    const statuses = async (webhookId: string) =>
      (await db.query<{ status: string }>(`SELECT status FROM webhook_deliveries WHERE webhook_id = $1 ORDER BY id`, [webhookId])).rows.map((r) => r.status);
    expect(await statuses(a.id)).toEqual(['failed', 'failed']); // the two queued before the revocation never go out
    expect(await statuses(b.id)).toEqual(['pending', 'pending', 'pending', 'pending']);

    const seenByB = await wh.service.list(keyB);
    expect(seenByB.map((w) => [w.id, w.is_active, w.key_revoked])).toEqual([
      [a.id, false, true],
      [b.id, true, false],
    ]);
    // Another wallet's key sees nothing of them; the wallet's other key deletes the revoked key's webhook.
    const stranger = { keyId: 'ak_0000000000000000000000000C', wallet: sampleAccount(71) };
    expect(await wh.service.list(stranger)).toEqual([]);
    await expect(wh.service.remove(stranger, a.id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(wh.service.remove(keyB, a.id)).resolves.toEqual({ id: a.id, deleted: true });
    expect((await wh.service.list(keyB)).map((w) => w.id)).toEqual([b.id]);
  });

  it('caps the webhooks of one wallet over all its keys', async () => {
    const wallet = sampleAccount(72);
    const body = { url: 'https://receiver.test/hook', events: ['pool_created'], secret: 'a-very-long-secret-value' };
    for (let k = 0; k < 4; k++) {
      for (let i = 0; i < 5; i++) await wh.service.register({ keyId: `ak_wallet_cap_${k}`, wallet }, body);
    }
    await expect(wh.service.register({ keyId: 'ak_wallet_cap_4', wallet }, body)).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
      details: { limit: 20 },
    });
    await expect(wh.service.register({ keyId: 'ak_wallet_cap_4', wallet: sampleAccount(73) }, body)).resolves.toMatchObject({ is_active: true });
  });

  it('announces pool_created once with registry metadata, and ties a sale to its listing', async () => {
    const hook = await register('ak_1', ['pool_created', 'marketplace_listing_created', 'marketplace_sale_completed']);
    await append([
      samplePoolRegistered(7),
      samplePoolInitialized(7),
      samplePoolInitialized(7), // same id: the store skips it
      sampleListingCreated(7, 3, 50),
      sampleListingSold(7, 3, 4, 51),
    ]);
    await runFanout();
    const bodies = (await deliveries()).map((r) => JSON.parse(r.body)).sort((x, y) => x.event.localeCompare(y.event));
    expect(bodies.map((b) => b.event)).toEqual(['marketplace_listing_created', 'marketplace_sale_completed', 'pool_created']);
    const pool = sampleContract(7);
    const listedEventId = sampleListingCreated(7, 3, 50).event.data as { chain: { event_id: string } };
    const sale = saleAddress(9, pool, sampleAccount(3), listedEventId.chain.event_id);
    expect(bodies[0].data).toMatchObject({ sale_address: sale, pool_name: 'Pool 7', shares_amount: 40, price_per_share: '2.50' });
    expect(bodies[1].data).toMatchObject({ sale_address: sale, buyer_address: sampleAccount(4), shares: 10, total_price: '25.00' });
    expect(bodies[2].data).toEqual({
      pool_address: pool,
      pool_name: 'Pool 7',
      pool_ticker: 'P7',
      network_id: 9,
      creator_address: sampleAccount(7),
      access_type: 'p',
      distribution_type: 'tr',
    });
    expect(hook.id).toMatch(/^wh_/);
  });
});
