import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Keypair, nativeToScVal } from '@stellar/stellar-sdk';
import { signChallenge } from '@dobprotocol/agent-client';
import { DEFAULT_SEED, devnetKeypair, startDevnet, type RunningDevnet } from '@dob/devnet';
import { fetchDevnetManifest } from '@dob/devnet-manifest';
import { createSqlEventStore, type EventStore, type RecordedEvent } from '@dob/event-store';
import { registerSeededPools, silentLogger, startNetworkIndexing } from '@dob/indexer';
import { createSqlLeaseStore } from '@dob/leases';
import { ProjectionRunner, createSqlReadModelStore, type ProjectionDefinition, type SqlProjectionDefinition } from '@dob/projections';
import { projectionRegistry } from '@dob/read-models';
import { createPostgresDatabase, type SqlDatabase } from '@dob/sql';
import { WEBHOOK_EVENTS, createFanoutProjection, createWebhookComponents } from '@dob/webhooks';
import { systemEventCatalog } from '@dob/runtime';
import { SeedSubmitter } from '../libs/devnet/src/seeder/seed-submitter';
import { readEverything } from '../libs/event-store/src/testing/read-everything';
import { expectSameDocuments } from '../libs/projections/src/testing/same-documents';
import { startTestReceiver, type TestReceiver } from '../libs/webhooks/src/testing/https-receiver';
import { ROOT, freePort, startApp, until, type AppProcess } from './app-processes';
import { testServices } from './services';
import { testCaller } from '../libs/webhooks/src/testing/test-caller';
import { testSchemaName } from '../libs/sql/src/testing/test-databases';

/**
 * Issue 17: two of every worker on one PostgreSQL and Redis, as child processes started the README's way — 2
 * indexers, 2 projectors, 2 notifiers, 2 APIs — following one devnet while a load runs on it.
 *
 * - Every 100 ms each worker's /health is asked whether it owns or stands by, per piece of work: no sample may show
 *   two owners of one projection, of the fan-out or of the network's ingestion.
 * - The owners (of most projections, of the fan-out, of ingestion) are SIGKILLed at once mid-load; each piece of
 *   work must be owned again within the issue's 10 s (measured and printed).
 * - At the end: the read models equal a clean rebuild from the same event store, the webhook deliveries equal a
 *   clean fan-out's and each arrived (by delivery id), and the chain events equal those a single fresh indexer
 *   ingests from the same devnet — nothing twice, nothing skipped; the cursor's windows are contiguous.
 * - The two APIs share rate limits (one key's budget is spent across both) and revocation (revoked through one,
 *   refused by the other).
 */

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const WEBHOOK_CONCURRENCY = 16;

async function health(port: number): Promise<Json | null> {
  try {
    const r = await fetch(`http://127.0.0.1:${port}/health`, { signal: AbortSignal.timeout(2000) });
    return (await r.json()) as Json;
  } catch {
    return null; // killed, or not listening yet
  }
}

/** What one worker says it owns right now, per piece of work. */
function ownedBy(app: 'projector' | 'notifier' | 'indexer', body: Json | null): string[] {
  if (!body) return [];
  const c = body.components ?? {};
  if (app === 'projector') {
    return Object.entries((c.projections?.details ?? {}) as Record<string, Json>)
      .filter(([, r]) => r.role === 'owner')
      .map(([name]) => `projection:${name}`);
  }
  if (app === 'notifier') return c.notifier?.details?.fanout === 'owner' ? ['projection:webhook_fanout'] : [];
  return c.indexer_9?.details?.role === 'owner' ? ['indexer:9'] : [];
}

async function schemaDb(schema: string): Promise<SqlDatabase> {
  return createPostgresDatabase({ connectionString: testServices.postgres, schema });
}

/** Domain events from the chain (and the seeded registry): not cursors, wallets or the scheduler's clock-driven events. */
const chainEventIds = (events: readonly RecordedEvent[]) =>
  events
    .filter((e) => !e.streamId.startsWith('indexer-') && !e.streamId.startsWith('wallet-'))
    .filter((e) => e.type !== 'RoundClaimAvailable' && e.type !== 'CampaignEffectivelyFailed')
    .map((e) => e.id)
    .sort();

describe('two of every worker on PostgreSQL and Redis under a devnet load (issue 17)', () => {
  const apps: AppProcess[] = [];
  /** Background loops (sampler, load) end here, whatever the test's outcome. */
  const loops: { stop(): void; done: Promise<void> }[] = [];
  const dirs: string[] = [];
  const dbs: SqlDatabase[] = [];
  const stores: EventStore[] = [];
  let devnet: RunningDevnet | undefined;
  let receiver: TestReceiver | undefined;
  const tmp = (prefix: string) => {
    const d = mkdtempSync(join(tmpdir(), prefix));
    dirs.push(d);
    return d;
  };

  afterAll(async () => {
    for (const l of loops) l.stop();
    await Promise.all(loops.map((l) => l.done));
    await Promise.all(apps.map((a) => a.stop(5_000)));
    for (const s of stores) await s.close();
    for (const db of dbs) await db.close();
    await devnet?.stop();
    await receiver?.close();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it('each piece of work has one owner at a time, fails over in < 10 s, and ends equal to a clean build', async () => {
    const schema = testSchemaName();
    const db = await schemaDb(schema);
    dbs.push(db);
    const secretKey = randomBytes(32);

    devnet = await startDevnet({ port: 0, dataDir: tmp('scale-devnet-'), seed: DEFAULT_SEED, ledgerIntervalMs: 1000 });
    const devnetUrl = new URL(devnet.rpcUrl).origin;
    receiver = await startTestReceiver();
    const caFile = join(tmp('scale-ca-'), 'ca.pem');
    writeFileSync(caFile, receiver.cert);

    // A webhook subscribed to every event, registered before anything is ingested: it gets every fan-out event.
    const webhooks = await createWebhookComponents({ db, secretKey, allowList: { hosts: ['localhost'] } });
    loops.push({ stop: () => webhooks.close(), done: Promise.resolve() });
    await webhooks.service.register(testCaller('ak_scale_test'), {
      url: `${receiver.origin}/hook`,
      events: [...WEBHOOK_EVENTS],
      secret: 'scale-test-webhook-secret',
    });

    const shared = {
      DATABASE_URL: `${testServices.postgres}?options=-c%20search_path%3D${schema}`,
      REDIS_URL: testServices.redis,
      JWT_SECRET: `jwt-${randomBytes(24).toString('hex')}`,
      WEBHOOK_SECRET_KEY: secretKey.toString('hex'),
      DEVNET_URL: devnetUrl,
      WEBHOOK_SSRF_ALLOW: 'localhost',
      WEBHOOK_CA_FILE: caFile,
      WEBHOOK_POLL_MS: '100',
      WEBHOOK_CONCURRENCY: String(WEBHOOK_CONCURRENCY),
      LOG_LEVEL: 'info',
    };
    const ports: Record<string, number> = {};
    const start = async (name: string, script: string, own: Record<string, string> = {}) => {
      const port = await freePort();
      ports[name] = port;
      const env = { ...shared, DATA_DIR: tmp(`scale-${name}-`), ...(script === 'start:api' ? { PORT: String(port) } : { HEALTH_PORT: String(port) }), ...own };
      const app = startApp(script, env);
      apps.push(app);
      return app;
    };
    const workers = {
      'indexer-1': await start('indexer-1', 'start:indexer'),
      'indexer-2': await start('indexer-2', 'start:indexer'),
      'projector-1': await start('projector-1', 'start:projector'),
      'projector-2': await start('projector-2', 'start:projector'),
      'notifier-1': await start('notifier-1', 'start:notifier'),
      'notifier-2': await start('notifier-2', 'start:notifier'),
    };
    await start('api-1', 'start:api', { API_IP_RATE_LIMIT_RPM: '1000' });
    await start('api-2', 'start:api', { API_IP_RATE_LIMIT_RPM: '1000' });
    const appOf = (name: string) => name.split('-')[0] as 'projector' | 'notifier' | 'indexer';
    const work = [...projectionRegistry.map((p) => `projection:${p.name}`), 'projection:webhook_fanout', 'indexer:9'];

    // The sampler: every 100 ms, who says it owns what.
    const killed = new Set<string>();
    const violations: string[] = [];
    const ownersNow = new Map<string, string[]>();
    let samples = 0;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        const began = Date.now();
        const answers = await Promise.all(Object.keys(workers).map(async (name) => [name, ownedBy(appOf(name), await health(ports[name]))] as const));
        const owners = new Map<string, string[]>();
        for (const [name, owned] of answers) for (const w of owned) owners.set(w, [...(owners.get(w) ?? []), name]);
        for (const [w, who] of owners) if (who.length > 1) violations.push(`${new Date(began).toISOString()} ${w}: ${who.join(', ')}`);
        ownersNow.clear();
        for (const [w, who] of owners) ownersNow.set(w, who);
        samples += 1;
        await sleep(Math.max(0, 100 - (Date.now() - began)));
      }
    })();
    loops.push({ stop: () => (sampling = false), done: sampler });

    const everyApp = [...apps];
    await until('every piece of work owned', async () => work.every((w) => ownersNow.has(w)), 150_000, everyApp);

    // The load: share transfers, deposits and distributions on the seeded V1 pools, a few per second.
    const submitter = new SeedSubmitter(devnet.chain);
    const manifest = await fetchDevnetManifest(devnetUrl);
    const v1 = manifest.pools
      .map((p, i) => ({ p, i }))
      .filter(({ p }) => p.contract_kind.startsWith('splitter_v1'))
      .slice(0, 4);
    const addr = (k: Keypair | string) => nativeToScVal(typeof k === 'string' ? k : k.publicKey(), { type: 'address' });
    const i128 = (n: bigint) => nativeToScVal(n, { type: 'i128' });
    let loadCalls = 0;
    let loadFailures = 0;
    let loading = true;
    const load = (async () => {
      for (let round = 0; loading; round++) {
        const { p, i } = v1[round % v1.length];
        const label = (what: string) => devnetKeypair(`seed-${DEFAULT_SEED}/pool-${i}/${what}`);
        const admin = label('admin');
        const [from, to] = round % 2 ? [label('holder-0'), label('holder-1')] : [label('holder-1'), label('holder-0')];
        const calls = [
          { signer: admin, contractId: manifest.paymentToken.address, fn: 'transfer', args: [addr(admin), addr(p.pool_address), i128(10_000_000n)] },
          { signer: admin, contractId: p.pool_address, fn: 'distribute_tokens', args: [addr(manifest.paymentToken.address)] },
          { signer: from, contractId: p.pool_address, fn: 'transfer_shares', args: [addr(from), addr(to), i128(1n)] },
        ];
        for (const call of calls) {
          try {
            submitter.call(call);
            loadCalls += 1;
          } catch {
            loadFailures += 1; // e.g. a holder without shares left: the load goes on with the others
          }
        }
        await sleep(300);
      }
    })();
    loops.push({ stop: () => (loading = false), done: load });

    // Let the load run, then kill the owners of most projections, of the fan-out and of ingestion at once.
    await sleep(8_000);
    const projectorOwner = (['projector-1', 'projector-2'] as const)
      .map((name) => ({
        name,
        n: [...ownersNow].filter(([w, who]) => w.startsWith('projection:') && w !== 'projection:webhook_fanout' && who.includes(name)).length,
      }))
      .sort((a, b) => b.n - a.n)[0].name;
    const victims = [projectorOwner, ownersNow.get('projection:webhook_fanout')![0], ownersNow.get('indexer:9')![0]];
    const orphaned = work.filter((w) => victims.includes(ownersNow.get(w)![0]));
    const killedAt = Date.now();
    for (const v of victims) {
      killed.add(v);
      process.kill(-workers[v as keyof typeof workers].child.pid!, 'SIGKILL');
    }
    const takeover = new Map<string, number>();
    await until(
      'every orphaned piece of work owned again',
      async () => {
        for (const w of orphaned) if (!takeover.has(w) && (ownersNow.get(w) ?? []).some((o) => !killed.has(o))) takeover.set(w, Date.now() - killedAt);
        return takeover.size === orphaned.length;
      },
      60_000,
      everyApp,
    );
    const failover = Object.fromEntries([...takeover].map(([w, ms]) => [w, ms]));
    console.log(`failover after SIGKILL of ${victims.join(', ')} (lease 5 s, heartbeat 1 s), ms: ${JSON.stringify(failover, null, 1)}`);

    await sleep(4_000); // the survivors carry the load for a while
    loading = false;
    await load;
    const lastLoadLedger = devnet.chain.latestLedger().sequence;

    // The two APIs: one key's rate limit spent across both; a key revoked through one is refused by the other.
    const api = (n: 1 | 2) => `http://127.0.0.1:${ports[`api-${n}`]}/api/agent`;
    for (const n of [1, 2] as const) {
      await until(`api-${n} listening`, async () => (await fetch(`http://127.0.0.1:${ports[`api-${n}`]}/health/live`)).ok, 120_000, everyApp);
    }
    const wallet = Keypair.random();
    const register = async (n: 1 | 2) => {
      const challenge = (await (await fetch(`${api(n)}/auth/challenge/${wallet.publicKey()}`)).json()) as Json;
      const r = await fetch(`${api(n)}/auth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ wallet: wallet.publicKey(), signature: signChallenge(challenge.data.message, wallet), label: `scale-${n}`, scopes: ['read'] }),
      });
      expect(r.status).toBe(201);
      return ((await r.json()) as Json).data.api_key as { key: string; key_id: string; rate_limit_rpm: number };
    };
    const pools = (n: 1 | 2, key: string) => fetch(`${api(n)}/pools?limit=1`, { headers: { 'x-api-key': key } }).then((r) => r.status);
    const spent = await register(1);
    const budget = spent.rate_limit_rpm + 10; // a key's window admits rpm + 10 (docs/auth.md)
    const statuses: number[] = [];
    for (let i = 0; i < budget + 4; i++) statuses.push(await pools(i % 2 === 0 ? 2 : 1, spent.key));
    expect(statuses.slice(0, budget).every((s) => s === 200)).toBe(true);
    expect(statuses.slice(budget)).toEqual([429, 429, 429, 429]); // one budget across both APIs, not one each
    const revoked = await register(2);
    expect(await pools(2, revoked.key)).toBe(200);
    const nonce = (await (
      await fetch(`${api(1)}/auth/nonce`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ wallet_address: wallet.publicKey() }),
      })
    ).json()) as Json;
    const token = (await (
      await fetch(`${api(1)}/auth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ wallet: wallet.publicKey(), signature: signChallenge(nonce.data.message, wallet) }),
      })
    ).json()) as Json;
    const revoke = await fetch(`${api(1)}/auth/keys/${revoked.key_id}`, { method: 'DELETE', headers: { authorization: `Bearer ${token.data.token}` } });
    expect(revoke.ok).toBe(true);
    expect(await pools(2, revoked.key)).toBe(401);

    // Drain: ingestion past the load's last ledger, projections and fan-out at the head, the queue empty.
    const store = await createSqlEventStore(db, { catalog: systemEventCatalog() });
    stores.push(store);
    const indexerOwner = () => ownersNow.get('indexer:9')?.[0];
    await until(
      'ingestion past the load',
      async () => {
        const body = await health(ports[indexerOwner() ?? 'indexer-1']);
        return (body?.components?.indexer_9?.details?.nextLedger ?? 0) > lastLoadLedger && body?.components?.indexer_9?.details?.state === 'live';
      },
      60_000,
      everyApp,
    );
    const served = new ProjectionRunner(store, createSqlReadModelStore(db), projectionRegistry);
    const fanoutHere = new ProjectionRunner<SqlProjectionDefinition>(store, createSqlReadModelStore(db), [createFanoutProjection()]);
    await until(
      'projections and fan-out at the head',
      async () => [...(await served.status()), ...(await fanoutHere.status())].every((p) => p.active !== null && p.active.lag === 0),
      60_000,
      everyApp,
    );
    await until('every delivery made', async () => (await webhooks.queue.counts()).pending === 0, 60_000, everyApp);
    sampling = false;
    await sampler;

    // One owner at a time, every time.
    console.log(`ownership samples: ${samples}; load: ${loadCalls} calls (${loadFailures} refused by the chain) up to ledger ${lastLoadLedger}`);
    expect(violations).toEqual([]);
    expect(samples).toBeGreaterThan(100);
    expect(loadCalls).toBeGreaterThan(20);
    for (const [w, ms] of takeover) expect({ w, ms: ms < 10_000 }).toEqual({ w, ms: true });
    const leases = await createSqlLeaseStore(db).list();
    for (const w of orphaned) expect(leases.find((l) => l.name === w)!.token).toBeGreaterThanOrEqual(2);

    // The operators' view of the same: every piece of work owned by a survivor, at lag 0.
    const status = spawnSync('npm', ['run', '-s', 'ops', '--', 'cluster', 'status'], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', DATABASE_URL: shared.DATABASE_URL },
      encoding: 'utf8',
    });
    console.log(`npm run ops -- cluster status\n${status.stdout}${status.stderr}`);
    for (const w of work) expect(status.stdout).toMatch(new RegExp(`${w}\\s+owned\\s+\\w+\\s+\\S+\\s+\\d+\\s+\\S+\\s+\\d+\\s+0 (events|ledgers)`));

    // Read models = a clean rebuild of every projection from the same event store into another schema.
    const cleanDb = await schemaDb(testSchemaName());
    dbs.push(cleanDb);
    const cleanStore = createSqlReadModelStore(cleanDb);
    const clean = new ProjectionRunner(store, cleanStore, projectionRegistry);
    await clean.start();
    await clean.waitUntilCaughtUp(120_000);
    await clean.stop();
    const readModels = createSqlReadModelStore(db);
    for (const def of projectionRegistry as readonly ProjectionDefinition[]) {
      for (const collection of Object.keys(def.collections)) {
        expectSameDocuments(`${def.name}.${collection}`, await readModels.documents(def, collection), await cleanStore.documents(def, collection));
      }
    }

    // Webhooks: the deliveries queued equal a clean fan-out's (same webhook), and each one arrived.
    (await createWebhookComponents({ db: cleanDb, secretKey, allowList: { hosts: ['localhost'] } })).close();
    await cleanDb.query(`INSERT INTO webhooks SELECT * FROM ${schema}.webhooks`);
    const cleanFanout = new ProjectionRunner<SqlProjectionDefinition>(store, createSqlReadModelStore(cleanDb), [createFanoutProjection()]);
    await cleanFanout.start();
    await cleanFanout.waitUntilCaughtUp(120_000);
    await cleanFanout.stop();
    const deliveryIds = async (d: SqlDatabase) => (await d.query<{ id: string }>('SELECT id FROM webhook_deliveries ORDER BY id')).rows.map((r) => r.id);
    const queued = await deliveryIds(db);
    expect(queued).toEqual(await deliveryIds(cleanDb));
    expect(queued.length).toBeGreaterThan(0);
    const received = receiver.requests.map((r) => r.headers['x-svc-delivery'] as string);
    console.log(`webhook deliveries: ${queued.length} queued, ${received.length} requests received, ${received.length - new Set(received).size} repeats`);
    expect([...new Set(received)].sort()).toEqual(queued);
    expect(received.length - new Set(received).size).toBeLessThanOrEqual(WEBHOOK_CONCURRENCY); // only attempts in flight at the kill repeat
    expect(await webhooks.queue.counts()).toMatchObject({ pending: 0, failed: 0 });

    // Chain events: exactly those a single fresh indexer ingests from the same devnet, and contiguous windows.
    const events = await readEverything(store);
    const fresh = await schemaDb(testSchemaName());
    dbs.push(fresh);
    const freshStore = await createSqlEventStore(fresh, { catalog: systemEventCatalog() });
    stores.push(freshStore);
    await registerSeededPools(freshStore, 9, manifest.pools);
    const single = startNetworkIndexing(freshStore, {
      rpcUrl: manifest.rpcUrl,
      networkId: 9,
      startLedger: 1,
      knownWasms: manifest.knownWasms,
      scheduler: false,
      logger: silentLogger,
    });
    try {
      await until(
        'the single indexer past the load',
        async () => (single.status().nextLedger ?? 0) > lastLoadLedger && single.status().state === 'live',
        120_000,
      );
    } finally {
      await single.stop();
    }
    expect(chainEventIds(events)).toEqual(chainEventIds(await readEverything(freshStore)));
    const windows = events
      .filter((e) => e.type === 'IngestionCursorAdvanced')
      .map((e) => e.data as { from_ledger: number; to_ledger: number; domain_events: number });
    // Committed windows never overlap (a window without events may go uncommitted, so they need not touch).
    let next = 1;
    for (const w of windows) {
      if (w.to_ledger < next && w.domain_events === 0) continue; // a new owner re-committing the cursor it resumes from
      expect({ from: w.from_ledger, atLeast: next, ok: w.from_ledger >= next }).toEqual({ from: w.from_ledger, atLeast: next, ok: true });
      next = w.to_ledger + 1;
    }
  }, 420_000);
});
