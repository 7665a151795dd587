import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Keypair } from '@stellar/stellar-sdk';
import { createSqlEventStore, type EventStore } from '@dob/event-store';
import { HealthRegistry, systemEventCatalog } from '@dob/runtime';
import { type SqlDatabase } from '@dob/sql';
import { testDatabases } from '../../../sql/src/testing/test-databases';
import { createNotifier, type Notifier } from '@dob/webhooks';
import { createApiApp } from '../bootstrap';
import { createApiAuth } from '../access';
import { startTestReceiver, type TestReceiver } from '../../../../libs/webhooks/src/testing/https-receiver';
import { samplePoolInitialized, samplePoolRegistered, sampleSharesTransferred, type SampleAppend } from '../../../../libs/webhooks/src/testing/sample-events';

/**
 * Issue 29, through HTTP with a running notifier: a wallet's two keys each register a webhook; the JWT revokes one
 * key; from then on its webhook receives nothing while the other key's keeps receiving, and the other key lists the
 * revoked key's webhook (inactive, key_revoked) and deletes it; the wallet's JWT lists and deletes any of them.
 */
describe("a revoked key's webhooks (e2e)", () => {
  const postgres = testDatabases().find((f) => f.name === 'postgres')!;
  const SECRET = 'revoked-key-webhook-secret-0123';
  let db: SqlDatabase;
  let events: EventStore;
  let auth: Awaited<ReturnType<typeof createApiAuth>>;
  let notifier: Notifier;
  let receiver: TestReceiver;
  let app: NestFastifyApplication;
  let api: string;
  const paths: string[] = [];
  /** What afterAll closes, newest first. */
  const opened: { close(): Promise<unknown> }[] = [];
  const keep = <T extends { close(): Promise<unknown> }>(thing: T): T => (opened.unshift(thing), thing);

  beforeAll(async () => {
    receiver = keep(await startTestReceiver());
    receiver.respond = (_req, path) => (paths.push(path), 200);
    db = keep(await postgres.create());
    events = keep(await createSqlEventStore(db, { pollIntervalMs: 50, catalog: systemEventCatalog() }));
    auth = keep(await createApiAuth({ db, events, jwt: { secret: 'revoked-key-e2e-secret-0123456789' }, ipRateLimitRpm: 10_000 }));
    notifier = await createNotifier({
      db,
      eventStore: events,
      secretKey: Buffer.alloc(32, 5),
      allowList: { hosts: ['localhost'] },
      ca: receiver.cert,
      pollIntervalMs: 50,
    });
    await notifier.start();
    keep({ close: () => notifier.stop() });
    app = keep(await createApiApp({ health: new HealthRegistry(), auth, webhooks: notifier.components.service }, { logger: false }));
    await app.listen(0, '127.0.0.1');
    api = `${await app.getUrl()}/api/agent`.replace('[::1]', '127.0.0.1');
  });

  afterAll(async () => {
    for (const thing of opened) await thing.close();
  });

  const call = async (method: string, path: string, options: { body?: unknown; key?: string; jwt?: string } = {}) => {
    const res = await fetch(`${api}${path}`, {
      method,
      headers: {
        ...(options.body ? { 'content-type': 'application/json' } : {}),
        ...(options.key ? { 'x-api-key': options.key } : {}),
        ...(options.jwt ? { authorization: `Bearer ${options.jwt}` } : {}),
      },
      body: options.body ? JSON.stringify(options.body) : undefined,
    });
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- response shapes vary per endpoint
    return { status: res.status, body: (await res.json()) as { data?: any; error?: { code: string } } };
  };
  const signed = async (kp: Keypair) => {
    const challenge = await call('GET', `/auth/challenge/${kp.publicKey()}`);
    return Buffer.from(kp.signMessage(challenge.body.data.message)).toString('hex');
  };
  const registerKey = async (kp: Keypair) => {
    const r = await call('POST', '/auth/register', { body: { wallet: kp.publicKey(), signature: await signed(kp), label: 'hooks', scopes: ['read'] } });
    expect(r.status).toBe(201);
    return { key: r.body.data.api_key.key as string, keyId: r.body.data.api_key.key_id as string };
  };
  const append = async (items: SampleAppend[]) => {
    for (const i of items) await events.appendToStream(i.streamId, [i.event]);
  };
  const eventually = async (what: string, check: () => Promise<boolean> | boolean, ms = 30_000) => {
    const until = Date.now() + ms;
    while (!(await check())) {
      if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  const count = (path: string) => paths.filter((p) => p === path).length;

  it('delivers nothing to a revoked key after the revocation; the wallet’s other key and its JWT list and delete it', async () => {
    const wallet = Keypair.random();
    const a = await registerKey(wallet);
    const b = await registerKey(wallet);
    const hook = async (k: { key: string }, path: string) => {
      const r = await call('POST', '/webhooks', { key: k.key, body: { url: `${receiver.origin}${path}`, events: ['shares_transferred'], secret: SECRET } });
      expect(r.status).toBe(201);
      return r.body.data.id as string;
    };
    const aHook = await hook(a, '/a');
    const bHook = await hook(b, '/b');

    // Both receive while both keys live.
    await append([samplePoolRegistered(3), samplePoolInitialized(3), sampleSharesTransferred(3, 1)]);
    await eventually('both receivers', () => count('/a') === 1 && count('/b') === 1);

    // The wallet's JWT revokes key A.
    const token = await call('POST', '/auth/token', { body: { wallet: wallet.publicKey(), signature: await signed(wallet) } });
    expect((await call('DELETE', `/auth/keys/${a.keyId}`, { jwt: token.body.data.token })).status).toBe(200);
    await eventually('the revocation reaching the webhooks', async () => {
      const listed = (await call('GET', '/webhooks', { key: b.key })).body.data as { id: string; key_revoked: boolean }[];
      return listed.some((w) => w.id === aHook && w.key_revoked);
    });

    await append([sampleSharesTransferred(3, 2), sampleSharesTransferred(3, 3)]);
    await eventually('the live key receiving', () => count('/b') === 3);
    await new Promise((r) => setTimeout(r, 500)); // any stray delivery to /a would have been sent by now
    expect(count('/a')).toBe(1);

    // Key B sees the revoked key's webhook (not its own to change) and deletes it; a stranger cannot.
    const listed = (await call('GET', '/webhooks', { key: b.key })).body.data;
    expect(listed.map((w: { id: string; is_active: boolean; key_revoked: boolean }) => [w.id, w.is_active, w.key_revoked])).toEqual([
      [aHook, false, true],
      [bHook, true, false],
    ]);
    expect((await call('PUT', `/webhooks/${aHook}`, { key: b.key, body: { is_active: true } })).status).toBe(404);
    const stranger = await registerKey(Keypair.random());
    expect((await call('DELETE', `/webhooks/${aHook}`, { key: stranger.key })).status).toBe(404);
    expect((await call('DELETE', `/webhooks/${aHook}`, { key: b.key })).body).toEqual({ success: true, data: { id: aHook, deleted: true } });
    expect((await call('GET', '/webhooks', { key: b.key })).body.data.map((w: { id: string }) => w.id)).toEqual([bHook]);
    // The revoked key itself can no longer call at all.
    expect((await call('GET', '/webhooks', { key: a.key })).status).toBe(401);
    // The wallet's JWT sees every key's webhooks and deletes any; without it, nothing.
    const jwt = token.body.data.token as string;
    expect((await call('GET', '/auth/keys/webhooks', { jwt })).body.data.map((w: { id: string }) => w.id)).toEqual([bHook]);
    expect((await call('GET', '/auth/keys/webhooks')).status).toBe(401);
    expect((await call('DELETE', `/auth/keys/webhooks/${bHook}`, { jwt })).body).toEqual({ success: true, data: { id: bHook, deleted: true } });
    expect((await call('GET', '/webhooks', { key: b.key })).body.data).toEqual([]);
  });
});
