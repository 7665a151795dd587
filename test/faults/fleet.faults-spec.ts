import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Keypair } from '@stellar/stellar-sdk';
import { DEFAULT_SEED, devnetKeypair, startDevnet, type RunningDevnet } from '@dob/devnet';
import { createChainEventCatalog } from '@dob/domain';
import { createSqlEventStore } from '@dob/event-store';
import { deliveryId } from '@dob/webhooks';
import { systemEventCatalog } from '@dob/runtime';
import { createPostgresDatabase } from '@dob/sql';
import { createApiAuth } from '../../libs/api-http/src/access';
import { accountKeypair } from '../../libs/read-models/src/testing/chain-scenario';
import { startTestReceiver, type TestReceiver } from '../../libs/webhooks/src/testing/https-receiver';
import { freePort, startApp, until, type AppProcess } from '../app-processes';
import { ChainReader } from '../chain-reader';
import { chainProblems, tradeStateProblems } from '../chain-truth';
import { checkpointProblems, eventStoreProblems, projectionsAtHead, readEverything, readModelProblems } from './end-of-run';
import { startOwnFerretDb, startOwnPostgres, startOwnRedis, type OwnServer } from './own-servers';
import { startOwnKafka, type OwnKafka } from './own-kafka';
import { RelayCheckpointWatch, checkpointAheadOfKafka, eventsOnNoTopic, kafkaDeliveryProblems } from './relay-watch';
import { ANALYST_TOPICS } from '../../libs/kafka-relay/src/analyst-topics';
import { startTopicReader, type TopicReader } from '../../libs/kafka-relay/src/testing/topic-reader';
import { positionToString, type GlobalPosition } from '@dob/event-store';
import { TcpProxy } from './tcp-proxy';
import { writeTable, type Row } from './faults-table';
import { TradeLoad } from './trade-load';
import { chainTransfers, readLoad, type Sample } from './fleet-load';
import { installFenceProbe, unfencedWrites } from './fence-probe';

/**
 * `npm run test:faults` — the fleet under faults (issue 31), one fault at a time, on servers of its own (never the
 * shared ones): the devnet (in this process, its RPC behind a TcpProxy), and started alone (`npm run start:<app>`) the
 * indexer, two projectors, the notifier and two API instances on its own PostgreSQL and Redis, plus FerretDB with a
 * projector and an API on MongoDB; a steady agent load on the APIs (./fleet-load.ts), agents trading through them
 * (./trade-load.ts), share transfers on the chain and a webhook to a local receiver; and after each fault the properties of the issue checked: API requests
 * get 503 + Retry-After within 2 s or an answer (never a 500, never a hang), /health names the server that is away,
 * every app is ready again within 15 s of the server's return by itself, /health does not flap afterwards, outages
 * are logged at error and counted in /metrics, a frozen projector owner loses its lease to the standby and stands by
 * after SIGCONT and no checkpoint moves under a lost lease (./fence-probe.ts). Writes the table of docs/operations.md
 * ("Faults, measured", ./faults-table.ts).
 * At the end: webhook deliveries, the event store, checkpoints and read models (./end-of-run.ts).
 * Kafka: three KRaft brokers of its own (topics replicated 3×, min.insync.replicas 2, the relay's acks=all), two
 * relays (`npm run start:relay`, one owns the lease) and a consumer group reading the analyst topics; faults: kill -9
 * of the partition leader, of the active controller, every broker down; the relay's checkpoint sampled throughout
 * (./relay-watch.ts). Then kill -9 of the indexer, a projector owner and the relay owner, and SIGSTOP of the relay
 * owner past its lease. FAULTS_SUBSET=ci runs the subset `.ci/run` runs (docs/operations.md).
 */
/**
 * FAULTS_SUBSET=ci: what `.ci/run` runs in its time budget — the faults marked `fault(true)`, outages of at most 5 s,
 * no FerretDB (FAULTS_FERRETDB=1 adds it); the end-of-run checks always run. Unset: every fault at full length.
 */
const CI = process.env.FAULTS_SUBSET === 'ci';
const seconds = (name: string, full: number) => Number(process.env[name] ?? (CI ? Math.min(full, 5) : full));
const PG_DOWN_S = seconds('FAULTS_PG_DOWN_S', 30);
const REDIS_DOWN_S = seconds('FAULTS_REDIS_DOWN_S', 20);
const CHAIN_DOWN_S = seconds('FAULTS_CHAIN_DOWN_S', 30);
const CHAIN_SILENT_S = seconds('FAULTS_CHAIN_SILENT_S', 30);
const FERRETDB_DOWN_S = seconds('FAULTS_FERRETDB_DOWN_S', 5);
const KAFKA_DOWN_S = seconds('FAULTS_KAFKA_DOWN_S', 30);
/** FerretDB with a projector and an API on MongoDB beside the SQL ones; FAULTS_FERRETDB=0 leaves them out. */
const WITH_FERRETDB = (process.env.FAULTS_FERRETDB ?? (CI ? '0' : '1')) !== '0';
/** A fault of the CI subset (`inCi`) or of the whole run only. */
const fault = (inCi: boolean) => (CI && !inCi ? it.skip : it);
/** A folder to write every app's output to at the end (to read what the table's failures were). */
const LOG_DIR = process.env.FAULTS_LOG_DIR;
const LEASE_MS = 3000;
const MAX_REQUESTS = 20_000; // the load's bound over the whole run
const MAX_CHAIN_CALLS = 600; // the chain load's bound: share transfers, one a second
const MAX_TRADE_REQUESTS = 600; // the trading load's bound: prepares and submits, a step every 2 s

interface Json {
  readonly status?: string;
  readonly waiting_for?: string[];
  readonly error?: { readonly code?: string };
  readonly pools?: readonly { readonly pool_address: string; readonly contract_kind: string }[];
  readonly components?: {
    readonly projections?: { readonly details?: Record<string, { readonly role?: string } | null> };
    readonly kafka_relay?: { readonly details?: { readonly state?: string; readonly published?: number; readonly last_ack_at?: string | null } };
  };
}
const getJson = async (url: string, headers: Record<string, string> = {}) => {
  const r = await fetch(url, { headers, signal: AbortSignal.timeout(5000) });
  return { status: r.status, headers: r.headers, body: (await r.json().catch(() => ({}))) as Json };
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('the fleet under faults', () => {
  let pg: OwnServer;
  let redis: OwnServer;
  let ferretdb: OwnServer;
  /** A projector and an API on the MongoDB read-model store (FerretDB), beside the SQL ones on one event store. */
  let mongoProjector: { app: AppProcess; health: string } | undefined;
  const dirs: string[] = [];
  const apps: AppProcess[] = [];
  const rows: Row[] = [];
  const samples: Sample[] = [];
  let env: Record<string, string>;
  const projectors: { app: AppProcess; health: string; metrics: string }[] = [];
  const apis: { app: AppProcess; port: number }[] = [];
  let indexer: { app: AppProcess; health: string };
  /** The devnet's RPC as the indexer and the APIs reach it: through this proxy, so the chain can be taken away. */
  let chain: TcpProxy;
  let devnet: RunningDevnet;
  let receiver: TestReceiver;
  let notifier: { app: AppProcess; health: string };
  let kafka: OwnKafka | undefined;
  let kafkaStarting: Promise<OwnKafka> | undefined;
  const relays: { app: AppProcess; health: string; metrics: string }[] = [];
  /** The analysts' consumer group: every message of the four topics, read from the first offset on, duplicates kept. */
  let reader: TopicReader | undefined;
  let relayWatch: RelayCheckpointWatch | undefined;
  /** The relay's furthest checkpoint while every broker was away, and when the last one died (checked at the end). */
  const brokersAway: { checkpoint: GlobalPosition; brokersGone: number }[] = [];
  let hookId = '';
  let hookCreatedAt = new Date(0);
  /** Share transfers submitted by the chain load so far. */
  const chainCalls = { n: 0 };
  /** While set, the chain load submits nothing (a fault that needs the event store still). */
  let chainPaused = false;
  let chainLoad: Promise<void> | undefined;
  let key = '';
  let loading = false;
  let load: Promise<void> | undefined;
  /** Agents trading through the API: listings made and cancelled, buys, crowdfunding contributions. */
  let trades: TradeLoad | undefined;

  const tmp = (p: string) => {
    const d = mkdtempSync(join(tmpdir(), p));
    dirs.push(d);
    return d;
  };
  const startProjector = async (i: number) => {
    const health = await freePort();
    const metrics = await freePort();
    const app = startApp('start:projector', { ...env, DATA_DIR: tmp('faults-projector-'), HEALTH_PORT: String(health), METRICS_PORT: String(metrics) });
    apps.push(app);
    projectors[i] = { app, health: `http://127.0.0.1:${health}/health`, metrics: `http://127.0.0.1:${metrics}/metrics` };
  };
  const startNotifier = async () => {
    const health = await freePort();
    const app = startApp('start:notifier', { ...env, DATA_DIR: tmp('faults-notifier-'), HEALTH_PORT: String(health) });
    apps.push(app);
    notifier = { app, health: `http://127.0.0.1:${health}/health` };
  };
  /** A relay on the suite's three brokers; several compete for one lease, the others stand by. */
  const startRelay = async (i: number) => {
    const [health, metrics] = [await freePort(), await freePort()];
    const app = startApp('start:relay', {
      ...env,
      DATA_DIR: tmp('faults-relay-'),
      KAFKA_BROKERS: kafka!.brokers.join(','),
      KAFKA_TOPIC_REPLICATION_FACTOR: '3', // min.insync.replicas 2 is the brokers' default (own-kafka.ts)
      RELAY_HEALTH_PORT: String(health),
      METRICS_PORT: String(metrics),
    });
    apps.push(app);
    relays[i] = { app, health: `http://127.0.0.1:${health}/health`, metrics: `http://127.0.0.1:${metrics}/metrics` };
  };
  const startIndexer = async () => {
    const health = await freePort();
    indexer = {
      // A silent RPC shows on /health after 2 s (INDEXER_RPC_SLOW_MS; 10 s by default), inside the CI subset's 5-s silence.
      app: startApp('start:indexer', { ...env, DATA_DIR: tmp('faults-indexer-'), HEALTH_PORT: String(health), INDEXER_RPC_SLOW_MS: '2000' }),
      health: `http://127.0.0.1:${health}/health`,
    };
    apps.push(indexer.app);
  };
  /** The relay's own report; empty while it does not answer (killed, frozen). */
  const relayDetails = async (i: number) => (await getJson(relays[i]!.health).catch(() => ({ body: {} as Json }))).body.components?.kafka_relay?.details ?? {};
  /** The relay holding the lease (the other reports `standby`). */
  const relayOwner = async () => ((await relayDetails(0)).state === 'standby' ? 1 : 0);
  /** When Kafka last acknowledged a batch of relay `i` (ms since the epoch; 0 if never or if it does not answer). */
  const ackedAt = async (i: number) => Date.parse((await relayDetails(i)).last_ack_at ?? '') || 0;
  /** When Kafka last acknowledged a batch of any relay. */
  const lastAck = async () => Math.max(...(await Promise.all(relays.map((_, i) => ackedAt(i)))));
  const kill9 = async (app: AppProcess) => {
    process.kill(-app.child.pid!, 'SIGKILL');
    await app.exited;
  };
  /**
   * kill -9 of `app`, `pauseMs` of nothing (or `meanwhile`), then `restart` as a supervisor does: the ms until every
   * app is ready again, counted from the restart (it includes the app's own start).
   */
  const killAndRestart = async (app: AppProcess, restart: () => Promise<void>, pauseMs: number, meanwhile = () => sleep(pauseMs)) => {
    await kill9(app);
    await meanwhile();
    await restart();
    return recovery(Date.now());
  };
  const mongoEnv = () => ({ ...env, MONGODB_URL: `${ferretdb.url}/faults` });
  const startApi = async (i: number, port?: number, appEnv = env) => {
    port ??= await freePort();
    const app = startApp('start:api', { ...appEnv, DATA_DIR: tmp('faults-api-'), PORT: String(port) });
    apps.push(app);
    apis[i] = { app, port };
  };
  const healthUrls = () => [
    ...apis.map((a) => `http://127.0.0.1:${a.port}/health`),
    ...projectors.map((p) => p.health),
    ...relays.map((r) => r.health),
    indexer.health,
    notifier.health,
    ...(mongoProjector ? [mongoProjector.health] : []), // started after the first API is ready
  ];
  const allReady = async () =>
    (
      await Promise.all(
        healthUrls().map((u) =>
          getJson(u).then(
            (r) => r.status === 200,
            () => false,
          ),
        ),
      )
    ).every(Boolean);
  /** ms until every app's /health is 200 again; fails after 15 s. */
  const recovery = async (since: number) => {
    await until('every app ready again within 15 s', allReady, 15_000, apps);
    return Date.now() - since;
  };

  /** Requests of [from, to): each failed one by status, and the properties every request must hold. */
  const judge = (from: number, to: number, o: { apiDown?: number } = {}) => {
    const window = samples.filter((s) => s.at >= from && s.at < to);
    const failed: Record<string, number> = {};
    for (const s of window) if (s.status !== 200) failed[String(s.status)] = (failed[String(s.status)] ?? 0) + 1;
    for (const s of window) {
      if (s.api === o.apiDown) continue; // a killed instance refuses connections: the load balancer's business
      expect({ status: s.status, ms: s.ms < 2000 }).toEqual(s.status === 200 ? { status: 200, ms: s.ms < 2000 } : { status: 503, ms: true });
      if (s.status === 503) expect(s.retryAfter).toBe('2');
    }
    // Trading: an answer of the chain or the domain (4xx: e.g. the listing not yet served) is counted, not a failure
    // of the fault; an outage answers 503 + Retry-After within 2 s; never a 500, never a hang.
    const traded = (trades?.samples ?? []).filter((s) => s.at >= from && s.at < to);
    for (const s of traded) if (s.status !== 200) failed[`${s.step} ${s.status}`] = (failed[`${s.step} ${s.status}`] ?? 0) + 1;
    if (o.apiDown === undefined) {
      const outage = traded.filter((s) => typeof s.status !== 'number' || s.status >= 500);
      expect(outage.filter((s) => s.status !== 503 || s.ms >= 2000 || !s.retryAfter)).toEqual([]);
    }
    return { requests: window.length + traded.length, failed };
  };

  /** The failures of reads alone (trades are keyed `<step> <status>`). */
  const readFailures = (failed: Record<string, number>) => Object.fromEntries(Object.entries(failed).filter(([k]) => !k.includes(' ')));

  /** A fault the agents must not notice (every request of the window 200): its row, then settled. */
  const unaffected = async (from: number, row: Omit<Row, 'requests' | 'failed'>) => {
    const verdict = judge(from, Date.now());
    expect(Object.keys(verdict.failed).filter((k) => !/ 4\d\d$/.test(k))).toEqual([]); // a trade's 4xx is the chain's answer
    await settled({ ...row, ...verdict });
  };

  /** /health of every app for 4 s: never anything but 200 while the system is healthy. */
  const noFlapping = async () => {
    for (let i = 0; i < 8; i++) {
      const answers = await Promise.all(
        healthUrls().map((u) =>
          getJson(u).then(
            (r) => ({ u, status: r.status, waiting: r.body.waiting_for }),
            (e: Error) => ({ u, status: 0, waiting: [e.message] }),
          ),
        ),
      );
      expect(answers.filter((a) => a.status !== 200)).toEqual([]); // names the app and what it waits for
      await sleep(500);
    }
  };

  /** The fault's row of the table, then the fleet healthy again without flapping before the next fault. */
  const settled = async (row: Row) => {
    rows.push(row);
    await noFlapping();
  };

  /**
   * The trading agents: the first holder of the seeded V2 payroll pool sells, a faucet-funded wallet buys and
   * contributes to the seeded open campaign furthest from its deadline; keys made as the API makes them.
   */
  const startTrading = async () => {
    const pool = devnet.pools.find((p) => p.contract_kind === 'splitter_v2' && p.pool_type === 'payroll')!.pool_address;
    const seller = devnetKeypair(`seed-${DEFAULT_SEED}/v2-pool-1/holder-0`);
    const buyer = Keypair.random();
    expect((await fetch(`${devnet.friendbotUrl}?addr=${buyer.publicKey()}`)).status).toBe(200);
    const [sellerKey, buyerKey] = await withKeys(async (keys) => {
      const made = [];
      for (const kp of [seller, buyer]) {
        const created = await keys.createKey(kp.publicKey(), { label: 'faults-trader', scopes: ['read', 'trade'], origin: 'register' });
        await keys.setRateLimit(created.record.keyId, 100_000);
        made.push(created.key);
      }
      return made;
    });
    const open = await getJson(`http://127.0.0.1:${apis[0]!.port}/api/agent/pools/crowdfunding?network_id=9`, { 'x-api-key': key });
    const campaign = (open.body as unknown as { data: { address: string }[] }).data.at(-1)!.address; // deadline_asc: the furthest
    const load = new TradeLoad({
      apis: () => apis.slice(0, 2).map((a) => `http://127.0.0.1:${a.port}/api/agent`), // the SQL-backed ones
      passphrase: devnet.networkPassphrase,
      seller: { keypair: seller, apiKey: sellerKey! },
      buyer: { keypair: buyer, apiKey: buyerKey! },
      pool,
      campaign,
      everyMs: 2000,
      maxRequests: MAX_TRADE_REQUESTS,
      paused: () => chainPaused,
    });
    load.start();
    return load;
  };

  beforeAll(async () => {
    // Three JVMs take their time: they start while the rest does.
    kafkaStarting = startOwnKafka(tmp('faults-kafka-'));
    kafkaStarting.catch(() => undefined); // awaited below, and by afterAll
    pg = await startOwnPostgres(tmp('faults-pg-'));
    redis = await startOwnRedis(tmp('faults-redis-'));
    // The devnet (its seeded chain) in this process, as test/scale-out.e2e-spec.ts runs it, so the chain load can
    // submit on it directly; the indexer and the APIs reach its RPC through a proxy, so the chain can be taken away.
    devnet = await startDevnet({ port: 0, dataDir: tmp('faults-devnet-'), seed: DEFAULT_SEED, ledgerIntervalMs: 1000 });
    const devnetUrl = new URL(devnet.rpcUrl).origin;
    chain = await TcpProxy.start({ host: '127.0.0.1', port: Number(new URL(devnet.rpcUrl).port) });
    receiver = await startTestReceiver();
    const caFile = join(tmp('faults-ca-'), 'ca.pem');
    writeFileSync(caFile, receiver.cert);
    env = {
      DATABASE_URL: pg.url,
      REDIS_URL: redis.url,
      JWT_SECRET: `jwt-${randomBytes(24).toString('hex')}`,
      WEBHOOK_SECRET_KEY: randomBytes(32).toString('hex'),
      LEASE_DURATION_MS: String(LEASE_MS),
      LEASE_HEARTBEAT_MS: '500',
      LOG_LEVEL: 'info',
      DEVNET_URL: devnetUrl, // the manifest (passphrase, test USDC, seeded pools), read once at start
      STELLAR_RPC_URL: `http://127.0.0.1:${chain.port}/rpc`, // wins over the manifest's RPC
      WEBHOOK_SSRF_ALLOW: 'localhost', // the suite's receiver, on loopback
      WEBHOOK_CA_FILE: caFile,
      WEBHOOK_POLL_MS: '100',
      METRICS_TOKEN: `metrics-${randomBytes(16).toString('hex')}`, // the API port serves /metrics only behind it
    };
    await startIndexer();
    if (WITH_FERRETDB) {
      const admin = await createPostgresDatabase({ connectionString: pg.url });
      await admin.query('CREATE DATABASE ferretdb'); // FerretDB's own, on the suite's PostgreSQL
      await admin.close();
      ferretdb = await startOwnFerretDb(pg.url.replace(/\/faults$/, '/ferretdb'), tmp('faults-ferretdb-'));
    }
    await startProjector(0);
    await startNotifier();
    await startApi(0);
    await until('the first API and projector ready', allReady, 120_000, apps);
    await startProjector(1);
    await startApi(1);
    kafka = await kafkaStarting;
    await startRelay(0);
    await startRelay(1);
    if (WITH_FERRETDB) {
      const mongoHealth = await freePort();
      mongoProjector = {
        app: startApp('start:projector', { ...mongoEnv(), DATA_DIR: tmp('faults-projector-mongo-'), HEALTH_PORT: String(mongoHealth) }),
        health: `http://127.0.0.1:${mongoHealth}/health`,
      };
      apps.push(mongoProjector.app);
      await startApi(2, undefined, mongoEnv());
    }
    await until('every app ready', allReady, 120_000, apps);
    reader = await startTopicReader(
      kafka.brokers,
      ANALYST_TOPICS.map((t) => t.topic),
    );
    relayWatch = await RelayCheckpointWatch.start(pg.url);
    await installFenceProbe(pg.url); // every checkpoint and lease table exists now: the projectors and relays are ready
    // An agent's key, made as the API makes it (the same tables), with a rate limit the load never reaches.
    key = await withKeys(async (keys) => {
      const created = await keys.createKey(accountKeypair('faults').publicKey(), { label: 'faults', scopes: ['read', 'trade'], origin: 'register' });
      await keys.setRateLimit(created.record.keyId, 100_000);
      return created.key;
    });
    // The webhook, registered through the API: every direct share transfer of the chain load from now on.
    const hook = await fetch(`http://127.0.0.1:${apis[0]!.port}/api/agent/webhooks`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ url: `${receiver.origin}/hook`, events: ['shares_transferred'], secret: 'faults-webhook-secret' }),
    });
    const registered = (await hook.json()) as { data: { id: string; created_at: string } };
    expect(hook.status).toBe(201);
    hookId = registered.data.id;
    hookCreatedAt = new Date(registered.data.created_at);
    trades = await startTrading();
    loading = true;
    load = readLoad({ running: () => loading, apis: () => apis.map((a) => a.port), key, samples, max: MAX_REQUESTS });
    chainLoad = chainTransfers(devnet, { running: () => loading, paused: () => chainPaused, max: MAX_CHAIN_CALLS, counter: chainCalls });
    await sleep(2000);
    expect(samples.filter((s) => s.status === 200).length).toBeGreaterThan(0);
  }, 300_000);

  afterAll(async () => {
    loading = false;
    await load;
    await trades?.stop();
    await chainLoad;
    await receiver?.close();
    await reader?.stop().catch(() => undefined);
    await relayWatch?.stop().catch(() => undefined);
    await devnet?.stop();
    await Promise.all(apps.map((a) => a.stop(5000)));
    if (LOG_DIR) apps.forEach((a, i) => writeFileSync(join(LOG_DIR, `${i}-${a.name.replace(':', '-')}.log`), a.output()));
    await chain?.close();
    await (await kafkaStarting?.catch(() => undefined))?.destroy();
    redis?.destroy();
    ferretdb?.destroy();
    pg?.destroy();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
    if (rows.length > 0 && !CI) writeTable(rows); // the subset's short outages are not the table's
  }, 120_000);

  fault(true)(
    'PostgreSQL restarted: nothing but 200 or 503 + Retry-After, every app ready again by itself, no flapping',
    async () => {
      const from = Date.now();
      await pg.stop();
      await pg.start();
      const recoverMs = await recovery(from); // from the restart's start: it includes the server's own stop and start
      await sleep(1000);
      await settled({
        fault: 'PostgreSQL restarted (pg_ctl stop -m fast, then start)',
        recoverMs,
        ...judge(from, Date.now()),
        operator: 'short `postgresql is unavailable` (error) / `available again` (warn) if a probe fell in the gap',
      });
    },
    120_000,
  );

  fault(true)(
    `PostgreSQL stopped ${PG_DOWN_S} s: 503 + Retry-After within 2 s, /health names postgresql, recovers by itself`,
    async () => {
      const from = Date.now();
      await pg.stop();
      await sleep(3000);
      const health = await getJson(`http://127.0.0.1:${apis[0]!.port}/health`);
      expect(health.status).toBe(503);
      expect(health.body.waiting_for!.join('\n')).toContain('postgresql: down');
      await sleep(PG_DOWN_S * 1000 - 3000);
      await pg.start();
      const back = Date.now();
      const recoverMs = await recovery(back);
      await sleep(1000);
      const metrics = await fetch(`http://127.0.0.1:${apis[0]!.port}/metrics`, { headers: { authorization: `Bearer ${env.METRICS_TOKEN}` } }).then((r) =>
        r.text(),
      );
      expect(metrics).toMatch(/dependency_outages_total\{dependency="postgresql",app="api"\} [1-9]/);
      expect(apis[0]!.app.output()).toMatch(/"level":"error"[^\n]*"dependency":"postgresql"[^\n]*postgresql is unavailable/);
      await settled({
        fault: `PostgreSQL stopped ${PG_DOWN_S} s`,
        recoverMs,
        ...judge(from, Date.now()),
        operator:
          '/health 503 `postgresql: down (…)` on every app; error `postgresql is unavailable`, warn `available again after N ms`; `dependency_up{dependency="postgresql"}` 0',
      });
    },
    180_000,
  );

  fault(true)(
    `Redis stopped ${REDIS_DOWN_S} s: agents keep being served (limits per instance), /health 200 degraded naming redis`,
    async () => {
      const from = Date.now();
      await redis.stop();
      await sleep(3000);
      const health = await getJson(`http://127.0.0.1:${apis[1]!.port}/health`);
      expect(health.status).toBe(200);
      expect(health.body.status).toBe('degraded');
      expect(health.body.waiting_for!.join('\n')).toContain('redis: degraded');
      await sleep(REDIS_DOWN_S * 1000 - 3000);
      await redis.start();
      const back = Date.now();
      const recoverMs = await until(
        'redis healthy again on both APIs',
        async () => (await Promise.all(apis.map((a) => getJson(`http://127.0.0.1:${a.port}/health`).then((r) => r.body.status === 'ready')))).every(Boolean),
        15_000,
        apps,
      ).then(() => Date.now() - back);
      await unaffected(from, {
        fault: `Redis stopped ${REDIS_DOWN_S} s`,
        recoverMs,
        operator:
          '/health 200 `degraded`, `redis: degraded (… rate limits are kept per API instance)`; error/warn log lines; `dependency_up{dependency="redis"}` 0',
      });
    },
    120_000,
  );

  fault(false)(
    'kill -9 of an API instance: the other keeps answering; started again, it is ready within 15 s',
    async () => {
      const from = Date.now();
      const victim = apis[0]!;
      const recoverMs = await killAndRestart(victim.app, () => startApi(0, victim.port), 2000);
      const verdict = judge(from, Date.now(), { apiDown: 0 });
      expect(samples.filter((x) => x.at >= from && x.api === 1).every((x) => x.status === 200)).toBe(true);
      await settled({
        fault: 'kill -9 of one API instance (restarted 2 s later)',
        recoverMs,
        ...verdict,
        operator: 'connection refused on that instance only; its /health answers again once started',
      });
    },
    120_000,
  );

  const roles = async (p: { health: string }) => {
    const r = await getJson(p.health);
    return Object.values(r.body.components?.projections?.details ?? {}).map((d) => d?.role);
  };
  /**
   * SIGSTOP of `app` (a GC pause, a stopped VM) until `tookOver` holds (bounded: the lease and 15 s), then a second
   * more, then SIGCONT: the ms from the freeze until the work changed hands.
   */
  const freezePastLease = async (app: AppProcess, what: string, tookOver: () => Promise<boolean>) => {
    const from = Date.now();
    process.kill(-app.child.pid!, 'SIGSTOP');
    const ms = await until(what, tookOver, LEASE_MS + 15_000, apps).then(() => Date.now() - from);
    await sleep(1000);
    process.kill(-app.child.pid!, 'SIGCONT');
    return ms;
  };
  /** ms from `since` until projector `i` owns every projection (bounded: the lease and 15 s). */
  const ownsEveryProjection = (i: number, since: number) =>
    until('the standby owning every projection', async () => (await roles(projectors[i]!)).every((r) => r === 'owner'), LEASE_MS + 15_000, apps).then(
      () => Date.now() - since,
    );
  /** The projector owning most projections (after an outage they may be split between the two). */
  const projectorOwner = async () => {
    const owned = async (i: number) => (await roles(projectors[i]!)).filter((r) => r === 'owner').length;
    return (await owned(0)) >= (await owned(1)) ? 0 : 1;
  };

  /** An agent key made as the API makes it (the same tables and events): `fn` gets the key service. */
  const withKeys = async <T>(fn: (keys: Awaited<ReturnType<typeof createApiAuth>>['keys']) => Promise<T>) => {
    const db = await createPostgresDatabase({ connectionString: pg.url });
    const events = await createSqlEventStore(db);
    const auth = await createApiAuth({ db, events, jwt: { secret: env.JWT_SECRET! } });
    try {
      return await fn(auth.keys);
    } finally {
      await auth.close();
      await events.close();
      await db.close();
    }
  };
  /** The head of `$all` and whether every projection (and the fan-out) has reached it. */
  const storeAt = async () => {
    const db = await createPostgresDatabase({ connectionString: pg.url });
    const store = await createSqlEventStore(db, { catalog: systemEventCatalog() });
    try {
      return { head: positionToString(await store.headPosition()), atHead: await projectionsAtHead(db, store) };
    } finally {
      await store.close();
      await db.close();
    }
  };

  /** The head of `$all` once it has not moved for 2 s and every projection has reached it (bounded: 30 s). */
  const storeStill = () =>
    until(
      'the event store still for 2 s and every projection at its head',
      async () => {
        const a = await storeAt();
        await sleep(2000);
        const b = await storeAt();
        return a.head === b.head && b.atHead && b.head;
      },
      30_000,
      apps,
    );

  fault(true)(
    'SIGSTOP of the projector owner past its lease, woken with events waiting: the fence refuses its commits; it stands by',
    async () => {
      const owner = await projectorOwner();
      const standby = 1 - owner;
      const [frozen, next] = [projectors[owner]!.app, projectors[standby]!.app];
      const from = Date.now();
      // The event store still (the chain load paused, everything projected): the standby's takeover then leaves every
      // checkpoint where the frozen owner left it, so the frozen owner's next commit passes the checkpoint's
      // compare-and-set on its expected position, and only the fencing token can refuse it.
      chainPaused = true;
      const quietAt = await storeStill();
      const frozenAt = Date.now();
      process.kill(-frozen.child.pid!, 'SIGSTOP');
      const tookOver = await ownsEveryProjection(standby, frozenAt); // from the freeze, not from the wait for a still store
      // Ready: its takeover commits are done, so it is not frozen holding a checkpoint row's lock.
      await until('the new owner ready', async () => (await getJson(projectors[standby]!.health)).status === 200, 15_000, apps);
      expect((await storeAt()).head).toBe(quietAt); // nothing appended: the checkpoints are where the frozen owner left them
      // The new owner frozen too, for less than its lease, so the events below wait for whoever commits first.
      process.kill(-next.child.pid!, 'SIGSTOP');
      await withKeys((keys) => keys.createKey(accountKeypair(`faults-fence-${from}`).publicKey(), { label: 'fence', scopes: ['read'], origin: 'register' }));
      const wokeAt = frozen.output().length;
      process.kill(-frozen.child.pid!, 'SIGCONT');
      await sleep(1000);
      process.kill(-next.child.pid!, 'SIGCONT');
      chainPaused = false;
      await until('the old owner standing by', async () => (await getJson(projectors[owner]!.health)).body.status === 'standby', 15_000, apps);
      const recoverMs = await recovery(Date.now());
      expect(await unfencedWrites(pg.url)).toEqual([]); // no checkpoint moved under a lost lease (the probe)
      // And the woken owner did try: its workers ran before its lease keeper stopped them, and the fence refused them.
      const refused =
        frozen
          .output()
          .slice(wokeAt)
          .match(/commit refused[^\n]*fenced/g) ?? [];
      expect(refused.length).toBeGreaterThan(0);
      await settled({
        fault: `SIGSTOP of the projector owner past its ${LEASE_MS / 1000} s lease, then SIGCONT with an event waiting (the new owner frozen meanwhile)`,
        recoverMs: tookOver,
        ...judge(from, Date.now()),
        operator: `standby owns every projection ${(tookOver / 1000).toFixed(1)} s after the freeze; the woken owner's ${refused.length} commits refused (log \`commit refused … (fenced)\`), no checkpoint written under a lost lease (probe); it reports /health \`standby\` (${recoverMs} ms after SIGCONT)`,
      });
    },
    120_000,
  );

  /**
   * A prepare that needs the chain: listing needs the caller's account on the chain, so with the chain up the answer
   * is the chain's (this key's wallet has no account there: 4xx), with it away 503 — the request is known to reach it.
   */
  const prepareList = async () => {
    const manifest = await getJson(`${env.DEVNET_URL}/devnet/contracts`);
    const pool = manifest.body.pools!.find((p) => p.contract_kind.startsWith('splitter'))!.pool_address;
    const started = Date.now();
    const r = await fetch(`http://127.0.0.1:${apis[1]!.port}/api/agent/marketplace/prepare-list`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ pool_address: pool, shares_amount: 1, price_per_share: '1.00', payment_token: 'USDC', network_id: 9 }),
      signal: AbortSignal.timeout(10_000),
    }).catch((e: Error) => e); // a hang is a finding, reported as such
    if (r instanceof Error)
      return { status: r.name === 'TimeoutError' ? 'no answer in 10 s' : r.message, code: undefined, retryAfter: null, ms: Date.now() - started };
    const body = (await r.json().catch(() => ({}))) as Json;
    return { status: r.status, code: body.error?.code, retryAfter: r.headers.get('retry-after'), ms: Date.now() - started };
  };
  /** Five prepares half a second apart while the chain is away: each 503 NETWORK_UNAVAILABLE + Retry-After within 2 s. */
  const preparesWhileChainAway = async () => {
    const prepares = [];
    for (let i = 0; i < 5; i++) {
      prepares.push(await prepareList());
      await sleep(500);
    }
    for (const p of prepares) expect(p).toEqual({ status: 503, code: 'NETWORK_UNAVAILABLE', retryAfter: expect.stringMatching(/^[1-9]/), ms: p.ms });
    expect(Math.max(...prepares.map((p) => p.ms))).toBeLessThan(2000);
    return prepares;
  };
  /** The indexer's own report of network 9 (empty while it does not answer). */
  const indexerDetails = async () => {
    const h = await getJson(indexer.health).catch(() => ({ status: 0, body: {} as Json }));
    const d = (h.body.components as Record<string, { details?: { nextLedger?: number; state?: string } }> | undefined)?.indexer_9?.details;
    return { status: h.status, nextLedger: d?.nextLedger ?? 0, state: d?.state };
  };

  /** What the indexer's /health says it waits for, when it is not ready and that matches `what`. */
  const indexerWaitingOn = async (what: RegExp) => {
    const h = await getJson(indexer.health);
    return h.status === 503 && (h.body.waiting_for ?? []).find((w) => what.test(w));
  };

  fault(true)(
    `the chain's RPC unreachable ${CHAIN_DOWN_S} s: prepares 503 NETWORK_UNAVAILABLE within 2 s, reads answer, the indexer recovers by itself`,
    async () => {
      const before = await prepareList();
      expect(before.status).toBeGreaterThanOrEqual(400);
      expect(before.status).toBeLessThan(500);

      const from = Date.now();
      await chain.cut();
      const degraded = await until('the indexer degraded, naming the RPC', () => indexerWaitingOn(/RPC/), 15_000, apps);
      const prepares = await preparesWhileChainAway();
      await sleep(Math.max(0, CHAIN_DOWN_S * 1000 - (Date.now() - from)));
      await chain.restore();
      const back = Date.now();
      const recoverMs = await until('the indexer live again within 15 s', async () => (await getJson(indexer.health)).status === 200, 15_000, apps).then(
        () => Date.now() - back,
      );
      console.log(`chain back: indexer ready again after ${recoverMs} ms`);
      expect((await prepareList()).status).toBe(before.status);
      const verdict = judge(from, Date.now());
      expect(readFailures(verdict.failed)).toEqual({}); // reads do not need the chain (trades do: counted in the row)
      await settled({
        fault: `the chain's RPC unreachable ${CHAIN_DOWN_S} s (connections refused)`,
        recoverMs,
        requests: verdict.requests + prepares.length,
        failed: { ...verdict.failed, [`prepare 503 NETWORK_UNAVAILABLE`]: prepares.length },
        operator: `indexer /health 503 \`${degraded.replace(env.STELLAR_RPC_URL!, 'STELLAR_RPC_URL')}\`, warn \`rpc call failed, retrying\`; prepares 503 \`NETWORK_UNAVAILABLE\` + Retry-After in ≤ ${Math.max(...prepares.map((p) => p.ms))} ms; reads 200`,
      });
    },
    180_000,
  );

  fault(true)(
    `the chain's RPC silent ${CHAIN_SILENT_S} s (accepts, never answers): prepares 503 within 2 s, reads answer, the indexer catches up by itself`,
    async () => {
      const before = await prepareList();
      expect(before.status).toBeGreaterThanOrEqual(400);
      expect(before.status).toBeLessThan(500);
      const from = Date.now();
      chain.silence();
      const silentSeen = until(
        'the indexer degraded, naming the silent RPC',
        () => indexerWaitingOn(/RPC .*has not answered/),
        15_000, // the silence lasts until it is seen (restored below): INDEXER_RPC_SLOW_MS plus at most one poll interval
        apps,
      );
      silentSeen.catch(() => undefined); // awaited below; not an unhandled rejection meanwhile
      const prepares = await preparesWhileChainAway();
      const silentReport = await silentSeen;
      await sleep(Math.max(0, CHAIN_SILENT_S * 1000 - (Date.now() - from)));
      const during = await indexerDetails();
      await chain.restore();
      const back = Date.now();
      const behind = devnet.chain.latestLedger().sequence;
      const recoverMs = await until(
        'the indexer live and past the ledgers closed while the RPC was silent, within 15 s',
        async () => {
          const d = await indexerDetails();
          return d.status === 200 && d.state === 'live' && d.nextLedger > behind;
        },
        15_000,
        apps,
      ).then(() => Date.now() - back);
      expect((await prepareList()).status).toBe(before.status);
      const verdict = judge(from, Date.now());
      expect(readFailures(verdict.failed)).toEqual({}); // reads do not need the chain (trades do: counted in the row)
      await settled({
        fault: `the chain's RPC silent ${CHAIN_SILENT_S} s (connections accepted, nothing answered)`,
        recoverMs,
        requests: verdict.requests + prepares.length,
        failed: { ...verdict.failed, [`prepare 503 NETWORK_UNAVAILABLE`]: prepares.length },
        operator: `prepares 503 \`NETWORK_UNAVAILABLE\` + Retry-After in ≤ ${Math.max(...prepares.map((p) => p.ms))} ms (STELLAR_RPC_TIMEOUT_MS 1500); reads 200; indexer /health 503 \`${silentReport.replace(env.STELLAR_RPC_URL!, 'STELLAR_RPC_URL')}\` (INDEXER_RPC_SLOW_MS 2000), ${during.status} \`${during.state ?? '?'}\` at the silence's end; it caught up (past ledger ${behind}) ${recoverMs} ms after the RPC answered again`,
      });
    },
    180_000,
  );

  fault(false)(
    'kill -9 of the notifier: started again, it is ready within 15 s and delivers what was missed',
    async () => {
      const from = Date.now();
      const recoverMs = await killAndRestart(notifier.app, startNotifier, 3000, async () => {
        const callsAtKill = chainCalls.n;
        await sleep(3000); // transfers go on meanwhile: their deliveries wait in the queue or for the fan-out
        expect(chainCalls.n).toBeGreaterThan(callsAtKill);
      });
      await unaffected(from, {
        fault: 'kill -9 of the notifier (restarted 3 s later)',
        recoverMs,
        operator: 'webhook deliveries pause (the receiver sees none) and resume from the durable queue; API unaffected',
      });
    },
    120_000,
  );

  (WITH_FERRETDB ? fault(false) : it.skip)(
    `FerretDB stopped ${FERRETDB_DOWN_S} s and started again: the MongoDB-backed API answers 503 + Retry-After, then recovers by itself`,
    async () => {
      const mongoApi = `http://127.0.0.1:${apis[2]!.port}/health`;
      const from = Date.now();
      await ferretdb.stop();
      await sleep(Math.min(3000, FERRETDB_DOWN_S * 1000));
      const health = await getJson(mongoApi);
      expect(health.status).toBe(503);
      expect(health.body.waiting_for!.join('\n')).toContain('mongodb');
      await sleep(Math.max(0, FERRETDB_DOWN_S * 1000 - (Date.now() - from)));
      await ferretdb.start();
      const back = Date.now();
      const recoverMs = await recovery(back);
      const verdict = judge(from, Date.now());
      await settled({
        fault: `FerretDB stopped ${FERRETDB_DOWN_S} s, then started (a projector and an API on MongoDB beside the SQL ones)`,
        recoverMs,
        ...verdict,
        operator: `/health 503 on the MongoDB-backed API and projector naming \`mongodb\` (\`${health.body.waiting_for!.find((w) => w.includes('mongodb'))}\`); the SQL-backed ones stay 200`,
      });
    },
    120_000,
  );

  /** Every partition of the analyst topics back to three replicas in sync (bounded), before the next fault. */
  const kafkaInSync = () => until('every partition in sync on three brokers', () => kafka!.inSync(ANALYST_TOPICS.map((t) => t.topic)), 60_000, apps);
  /** ms from `since` until Kafka acknowledged a batch of the relays again (the chain load makes one a second). */
  const relayAcknowledgedAgain = async (since: number) => {
    await until('the relay acknowledged by Kafka again within 15 s', async () => (await lastAck()) > since, 15_000, apps);
    return Date.now() - since;
  };

  fault(true)(
    "kill -9 of the Kafka broker leading the chain load's partition: the relay goes on, nothing lost",
    async () => {
      const topic = ANALYST_TOPICS.find((t) => t.name === 'pools')!.topic;
      const partition = reader!.messages.filter((m) => m.topic === topic).at(-1)?.partition ?? 0;
      const leader = await kafka!.partitionLeader(topic, partition);
      const from = Date.now();
      await kafka!.nodes[leader - 1]!.kill();
      const recoverMs = await relayAcknowledgedAgain(from);
      const newLeader = await until(
        'another broker leading the partition',
        async () => {
          const l = await kafka!.partitionLeader(topic, partition);
          return l !== leader && l > 0 ? l : undefined;
        },
        15_000,
        apps,
      );
      await kafka!.nodes[leader - 1]!.start();
      await kafkaInSync();
      const verdict = judge(from, Date.now());
      expect(verdict.failed).toEqual({}); // the API does not need Kafka
      await settled({
        fault: `kill -9 of the Kafka broker leading the chain load's partition (${topic}#${partition}), restarted`,
        recoverMs,
        ...verdict,
        operator: `broker ${newLeader} leads the partition; the relay acknowledged again ${recoverMs} ms after the kill (/health stays 200)`,
      });
    },
    180_000,
  );

  fault(false)(
    'kill -9 of the active Kafka controller: a new quorum leader, the relay goes on',
    async () => {
      const controller = kafka!.activeController();
      const from = Date.now();
      await kafka!.nodes[controller - 1]!.kill();
      const elected = await until('another node leading the quorum', async () => kafka!.activeController() !== controller, 15_000, apps).then(
        () => Date.now() - from,
      );
      const recoverMs = await relayAcknowledgedAgain(from);
      await kafka!.nodes[controller - 1]!.start();
      await kafkaInSync();
      await unaffected(from, {
        fault: 'kill -9 of the active Kafka controller (KRaft quorum leader), restarted',
        recoverMs,
        operator: `a new quorum leader ${elected} ms after the kill; the relay acknowledged again after ${recoverMs} ms (/health stays 200)`,
      });
    },
    180_000,
  );

  fault(true)(
    `every Kafka broker down ${KAFKA_DOWN_S} s: the relay degraded naming kafka, its checkpoint still; back within 15 s`,
    async () => {
      const from = Date.now();
      await Promise.all(kafka!.nodes.map((n) => n.kill()));
      const brokersGone = Date.now();
      const owner = await relayOwner();
      const degraded = await until(
        'the relay degraded, naming kafka',
        async () => {
          const h = await getJson(relays[owner]!.health);
          return h.status === 200 && h.body.status === 'degraded' && (h.body.waiting_for ?? []).find((w) => w.startsWith('kafka:'));
        },
        20_000,
        apps,
      );
      await sleep(1000); // a batch acknowledged just before the kill has had its checkpoint move by now
      const stillFrom = Date.now();
      const atDown = await relayWatch!.current();
      await sleep(Math.max(0, KAFKA_DOWN_S * 1000 - (Date.now() - from)));
      // No broker can acknowledge: a checkpoint that moves now was committed before Kafka took the batch.
      expect({ 'relay checkpoint positions while no broker could acknowledge': relayWatch!.between(stillFrom, Date.now()) }).toEqual({
        'relay checkpoint positions while no broker could acknowledge': [positionToString(atDown!)],
      });
      const brokersUp = Date.now();
      await kafka!.startAll();
      const back = Date.now();
      const checkpointWhileDown = relayWatch!.furthest(brokersGone, back);
      const recoverMs = await until(
        'the relay ready (not degraded) and acknowledged again within 15 s',
        async () => (await getJson(relays[owner]!.health)).body.status === 'ready' && (await lastAck()) > back,
        15_000,
        apps,
      ).then(() => Date.now() - back);
      await sleep(2500); // the dependency watch probes every 2 s
      const metrics = await fetch(relays[owner]!.metrics).then((r) => r.text());
      expect(metrics).toMatch(/dependency_outages_total\{dependency="kafka",app="relay"\} [1-9]/);
      expect(relays[owner]!.app.output()).toMatch(/"level":"error"[^\n]*"dependency":"kafka"[^\n]*kafka is unavailable/);
      // What the checkpoint held while no broker was up must have been acknowledged before they went down: checked at
      // the end, once the consumer group has read everything (after a long outage it rejoins slowly).
      brokersAway.push({ checkpoint: checkpointWhileDown!, brokersGone });
      await kafkaInSync();
      await unaffected(from, {
        fault: `every Kafka broker down ${KAFKA_DOWN_S} s (kill -9 of all three), then started`,
        recoverMs,
        operator: `relay /health 200 \`degraded\`, \`${degraded.replace(/\(.*$/, '(…)')}\`; error \`kafka is unavailable\`, warn \`available again\`; \`dependency_outages_total{dependency="kafka"}\`; checkpoint still while down; the brokers took ${((back - brokersUp) / 1000).toFixed(1)} s to start`,
      });
    },
    300_000,
  );

  fault(false)(
    'kill -9 of the indexer: started again, it resumes from its checkpoint and is ready within 15 s',
    async () => {
      const from = Date.now();
      const readyMs = await killAndRestart(indexer.app, startIndexer, 2000);
      // Ready is not yet ingesting: the restarted indexer stands by (200) until the dead one's lease lapses, then
      // reports 503 `its first RPC answer` while it starts; recovered means live again (seen flapping otherwise).
      const restartedAt = Date.now() - readyMs;
      const recoverMs = await until(
        'the restarted indexer ingesting again within 15 s',
        async () => (await indexerDetails()).state === 'live' && (await indexerDetails()).status === 200,
        15_000,
        apps,
      ).then(() => Date.now() - restartedAt);
      await unaffected(from, {
        fault: 'kill -9 of the indexer (restarted 2 s later)',
        recoverMs,
        operator: `indexer /health unanswered until started, then 200 standby until the dead one's lease lapsed, 503 \`its first RPC answer\` while it starts; ingesting ${recoverMs} ms after its start; reads unaffected; it resumes from its stored cursor`,
      });
    },
    120_000,
  );

  fault(false)(
    'kill -9 of the projector owner: the standby takes every projection; started again, it stands by',
    async () => {
      const owner = await projectorOwner();
      const standby = 1 - owner;
      const from = Date.now();
      await kill9(projectors[owner]!.app);
      const tookOver = await ownsEveryProjection(standby, from);
      await startProjector(owner);
      const recoverMs = await recovery(Date.now());
      const verdict = judge(from, Date.now());
      await settled({
        fault: 'kill -9 of the projector owner (restarted)',
        recoverMs: tookOver,
        ...verdict,
        operator: `standby owns every projection ${(tookOver / 1000).toFixed(1)} s after the kill; the restarted one ready (standby) ${recoverMs} ms after its start`,
      });
    },
    120_000,
  );

  fault(false)(
    'kill -9 of the relay owner: the standby takes the lease and publishes; started again, it stands by',
    async () => {
      const owner = await relayOwner();
      const from = Date.now();
      await kill9(relays[owner]!.app);
      const tookOver = await until(
        'the standby relay publishing',
        async () => (await relayDetails(1 - owner)).state === 'live' && (await ackedAt(1 - owner)) > from,
        LEASE_MS + 15_000,
        apps,
      ).then(() => Date.now() - from);
      await startRelay(owner);
      const recoverMs = await recovery(Date.now());
      expect((await relayDetails(owner)).state).toBe('standby');
      expect(relayWatch!.backwards()).toEqual([]);
      await unaffected(from, {
        fault: 'kill -9 of the relay owner (restarted)',
        recoverMs: tookOver,
        operator: `the standby relay publishes ${(tookOver / 1000).toFixed(1)} s after the kill (lease ${LEASE_MS / 1000} s); the restarted one reports \`standby\` ${recoverMs} ms after its start`,
      });
    },
    120_000,
  );

  fault(true)(
    `SIGSTOP of the relay owner past its lease, then SIGCONT: the standby publishes, the old owner stands by and writes nothing`,
    async () => {
      const owner = await relayOwner();
      const standby = 1 - owner;
      const from = Date.now();
      const tookOver = await freezePastLease(
        relays[owner]!.app,
        'the standby relay publishing',
        async () => (await relayDetails(standby)).state === 'live' && (await ackedAt(standby)) > from,
      );
      const resumed = Date.now();
      await until('the old relay owner standing by', async () => (await relayDetails(owner)).state === 'standby', 15_000, apps);
      const stoodBy = Date.now() - resumed;
      const published = (await relayDetails(owner)).published;
      await sleep(3000);
      // Standing by, it publishes nothing more; its checkpoint writes were fenced (the watch saw no move backwards).
      expect((await relayDetails(owner)).published).toBe(published);
      expect(relayWatch!.backwards()).toEqual([]);
      await unaffected(from, {
        fault: `SIGSTOP of the relay owner past its ${LEASE_MS / 1000} s lease, then SIGCONT`,
        recoverMs: tookOver,
        operator: `the standby relay publishes ${(tookOver / 1000).toFixed(1)} s after the freeze; the resumed one reports \`standby\` ${stoodBy} ms after SIGCONT and publishes nothing more; checkpoint never backwards`,
      });
    },
    120_000,
  );

  it('at the end: every kind of trade went through; every share transfer the webhook subscribed to was delivered at least once (by event id)', async () => {
    loading = false;
    await chainLoad;
    await trades!.stop();
    const outcomes: Record<string, number> = {};
    for (const t of trades!.samples) outcomes[`${t.step} ${t.status}`] = (outcomes[`${t.step} ${t.status}`] ?? 0) + 1;
    console.log(`trading: ${trades!.samples.length} requests (${JSON.stringify(outcomes)}); went through: ${JSON.stringify(trades!.done)}`);
    // Every kind of trade went through at least once (the load is not only reads and transfers).
    expect(Object.keys(trades!.done).sort()).toEqual(['buy', 'cancel', 'contribute', 'list']);
    const lastLedger = devnet.chain.latestLedger().sequence;
    await until(
      'the indexer past the chain load',
      async () => {
        const d = await indexerDetails();
        return d.nextLedger > lastLedger && d.state === 'live';
      },
      60_000,
      apps,
    );
    const db = await createPostgresDatabase({ connectionString: pg.url });
    const events = await createSqlEventStore(db, { catalog: createChainEventCatalog() });
    const transfers = (await readEverything(events)).filter((e) => e.type === 'SharesTransferred');
    await events.close();
    await db.close();
    const subscribed = transfers.filter((e) => (e.data as { reason?: string }).reason === 'direct' && e.recordedAt >= hookCreatedAt);
    expect(subscribed.length).toBeGreaterThanOrEqual(Math.min(chainCalls.n, 10));
    const expected = new Set(subscribed.map((e) => deliveryId(e.id, hookId)));
    const delivered = () => new Set(receiver.requests.map((r) => r.headers['x-svc-delivery'] as string));
    await until('every subscribed event delivered', async () => [...expected].every((id) => delivered().has(id)), 60_000, apps);
    console.log(`webhook: ${expected.size} events subscribed, ${receiver.requests.length} requests received, ${delivered().size} distinct deliveries`);
  }, 120_000);

  // Skipped in the CI subset from 2026-11-27 to 2026-11-28 while it failed intermittently ("relayed events on no
  // topic"): kafkajs's produce retries could skip a partition whose leader had moved (libs/kafka-relay/src/kafkajs/
  // partition-requests.ts; runs counted in docs/operations.md, "Faults, measured"); with one partition per request,
  // back in the subset.
  it('at the end: every relayed domain event on its Kafka topic at least once, in order per pool; the relay checkpoint never moved backwards nor ahead of Kafka', async () => {
    const db = await createPostgresDatabase({ connectionString: pg.url });
    const store = await createSqlEventStore(db, { catalog: systemEventCatalog() });
    try {
      await until(
        'every relayed event read by the consumer group',
        async () => (await kafkaDeliveryProblems(store, reader!.messages)).length === 0,
        90_000,
        apps,
      ).catch(
        () => undefined, // the problems are printed below
      );
      const live = await kafkaDeliveryProblems(store, reader!.messages);
      if (live.length > 0) {
        const again = await startTopicReader(
          kafka!.brokers,
          ANALYST_TOPICS.map((t) => t.topic),
        );
        try {
          await until('a fresh read from the first offset', async () => (await kafkaDeliveryProblems(store, again.messages)).length === 0, 30_000, apps).catch(
            () => undefined,
          );
          const missed = await eventsOnNoTopic(store, reader!.messages);
          const healths = await Promise.all(
            relays.map(async (r) =>
              (
                await fetch(r.health)
                  .then((x) => x.text())
                  .catch((err) => String(err))
              ).slice(0, 300),
            ),
          );
          console.log(
            `kafka DIAG: live group problems ${JSON.stringify(live)}; missed ${JSON.stringify(missed)}; store head ${positionToString(await store.headPosition())}; relay checkpoint ${((c) => (c ? positionToString(c) : 'none'))(await relayWatch!.current())}; relays ${JSON.stringify(healths)}; a fresh group from the first offset read ${again.messages.length}, problems ${JSON.stringify(await kafkaDeliveryProblems(store, again.messages))}`,
          );
        } finally {
          await again.stop();
        }
      }
      const problems = [...live, ...relayWatch!.backwards()];
      for (const away of brokersAway) problems.push(...(await checkpointAheadOfKafka(store, reader!.messages, away.checkpoint, away.brokersGone)));
      console.log(
        `kafka: ${reader!.messages.length} messages read by the consumer group; its consumer crashed ${reader!.crashes.length} times ${JSON.stringify(reader!.crashes)}; problems: ${problems.length}`,
      );
      expect(problems).toEqual([]);
    } finally {
      await store.close();
      await db.close();
    }
  }, 180_000);

  it('at the end: no gap or duplicate in the event store, no checkpoint past the head nor moved under a lost lease, read models = a clean build', async () => {
    const db = await createPostgresDatabase({ connectionString: pg.url });
    // A database of its own for the clean build: a schema would fall back to public's views (search_path) and a
    // slot switch there would drop the served ones.
    await db.query('CREATE DATABASE faults_clean');
    const cleanDb = await createPostgresDatabase({ connectionString: pg.url.replace(/\/faults$/, '/faults_clean') });
    const store = await createSqlEventStore(db, { catalog: systemEventCatalog() });
    try {
      // Still, not only at the head: a trade's last events may still be on their way from the chain through the
      // indexer, and a clean build made after them would differ from read models compared before them.
      await storeStill();
      const all = await readEverything(store);
      const problems = [
        ...(await eventStoreProblems(db, all)),
        ...(await checkpointProblems(db, store)),
        ...(await unfencedWrites(pg.url)), // no owner (projector or relay) moved a checkpoint after losing its lease
        ...(await readModelProblems(db, store, cleanDb)),
      ];
      console.log(`end of run: ${all.length} events in ${new Set(all.map((e) => e.streamId)).size} streams checked; problems: ${problems.length}`);
      expect(problems).toEqual([]);
    } finally {
      await store.close();
      await cleanDb.close();
      await db.close();
    }
  }, 240_000);

  it("at the end: every API (SQL and, with FerretDB, MongoDB) serves each splitter's members, total_shares, listings and rounds and each campaign's raised amount as the contracts hold them", async () => {
    const served = apis.map((a, i) => ({ name: `api ${i + 1}${WITH_FERRETDB && i === 2 ? ' (MongoDB)' : ''}`, base: `http://127.0.0.1:${a.port}/api/agent` }));
    const reader = new ChainReader(devnet.rpcUrl, devnet.networkPassphrase);
    const splitters = devnet.manifest.pools.filter((p) => p.contract_kind.startsWith('splitter')).map((p) => p.pool_address);
    // The last transfers may still be on their way through the indexer and the projectors: asked again until none
    // differs or 30 s pass, then what differs is the failure.
    let problems: string[] = [];
    let compared = { listings: 0, rounds: 0, campaigns: 0 };
    const deadline = Date.now() + 30_000;
    do {
      compared = { listings: 0, rounds: 0, campaigns: 0 };
      problems = [...(await chainProblems(served, key, reader, splitters)), ...(await tradeStateProblems(served, key, reader, splitters, compared))];
      if (problems.length) await sleep(1000);
    } while (problems.length && Date.now() < deadline);
    console.log(
      `end of run: ${splitters.length} splitters (members, listings, rounds) and the campaigns on ${served.length} APIs compared with the chain (${JSON.stringify(compared)}); problems: ${problems.length}`,
    );
    expect(problems).toEqual([]);
  }, 120_000);
});
