import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { DEVNET_STAND_IN_WASMS, startDevnet, DEFAULT_SEED, type RunningDevnet } from '@dob/devnet';
import type { EventStore } from '@dob/event-store';
import { registerSeededPools, silentLogger, startNetworkIndexing, type IngestionStatus } from '@dob/indexer';
import { DEFAULT_CATCH_UP_BATCH_SIZE, ProjectionRunner, projectionsHealth } from '@dob/projections';
import { openReadModelStorage, projectionRegistry, type ReadModelStorage } from '@dob/read-models';
import { loadKafkaRelaySettings, startKafkaRelay, type KafkaRelay } from '@dob/kafka-relay';
import { HealthRegistry, loadAppConfig, openStorage, storageDependencies, systemEventCatalog, watchDependencies, type Storage } from '@dob/runtime';
import {
  DependencyWatch,
  ServiceMetrics,
  startMetricsServer,
  createLogger,
  fieldLogger,
  instrumentEventStore,
  lineLogger,
  recordDelivery,
  type Logger as PinoLogger,
} from '@dob/observability';
import type { SqlDatabase } from '@dob/sql';
import { createNotifier, webhookSettings, type WebhookConfig } from '@dob/webhooks';
import { Logger } from '@nestjs/common';
import { startApi, type HttpLimits } from '../../api/src/bootstrap';
import { startAdminServer } from './admin/admin-server';
import { PinoNestLogger } from '../../api/src/logging/pino-nest-logger';
import { composeApiDependencies } from '../../api/src/compose-api-dependencies';

/** The embedded default serves Stellar network id 9 (testnet's id) from the local devnet (docs/decisions.md#d5). */
export const EMBEDDED_NETWORK_ID = 9;

export interface SystemOptions {
  readonly dataDir: string;
  /** API port; 0 picks a free one. */
  readonly port: number;
  /** Devnet RPC port; 0 picks a free one. Ignored when rpcUrl is given. */
  readonly devnetPort: number;
  /** PostgreSQL instead of embedded PGlite. */
  readonly databaseUrl?: string;
  /** KurrentDB / EventStoreDB for the event store instead of the SQL database. */
  readonly eventStoreUrl?: string;
  /** MongoDB for the read models (mongodb://host:port/<database>) instead of the SQL database. */
  readonly mongodbUrl?: string;
  /** An external Stellar RPC for network 9 instead of the embedded devnet. */
  readonly rpcUrl?: string;
  readonly networkPassphrase?: string;
  /** Seed the devnet on first start (default true: the deterministic default seed). */
  readonly seed?: boolean | number;
  readonly ledgerIntervalMs?: number;
  readonly startLedger?: number;
  /** Redis for the rate limiter (shared by API instances); unset = in-process. */
  readonly redisUrl?: string;
  /** Per-IP limit of calls without a valid API key; default 60 rpm. */
  readonly ipRateLimitRpm?: number;
  /** JWT signing key; unset = a key file kept in the data folder. */
  readonly jwtSecret?: string;
  /** Explorer base for `stellar_explorer_url` (network 9 is testnet's id). */
  readonly explorerUrl?: string;
  /** WEBHOOK_* settings (secret key, SSRF allow-list for local receivers, CA, retry schedule); default: the defaults. */
  readonly webhook?: WebhookConfig;
  readonly retentionLedgers?: number;
  /** KAFKA_* settings; with KAFKA_BROKERS set the Kafka relay runs too (docs/kafka.md). Default process.env. */
  readonly kafkaEnv?: NodeJS.ProcessEnv;
  /** Quiet logs (tests). */
  readonly quiet?: boolean;
  /** The API's timeouts, connections per client and trusted proxies (default DEFAULT_HTTP_LIMITS). */
  readonly http?: HttpLimits;
  /** Bearer token of GET /metrics on the API port; unset = not served there. */
  readonly metricsToken?: string;
  /** /metrics and /health/live on a port of their own. */
  readonly metricsPort?: number;
  /** LOG_LEVEL (default info); ignored when quiet. */
  readonly logLevel?: string;
}

export interface RunningSystem {
  readonly apiUrl: string;
  readonly healthUrl: string;
  readonly rpcUrl: string;
  readonly networkPassphrase: string;
  readonly friendbotUrl?: string;
  readonly networkId: number;
  readonly storage: Storage;
  /** Where the read models are (the SQL database, or MongoDB): their store, readers and featured picks. */
  readonly readModels: ReadModelStorage;
  readonly db: SqlDatabase;
  readonly eventStore: EventStore;
  readonly devnet?: RunningDevnet;
  readonly projections: ProjectionRunner;
  /** Present when KAFKA_BROKERS is set. */
  readonly kafkaRelay?: KafkaRelay;
  /** The admin endpoint the ops CLI uses while this process holds the data folder (`<dataDir>/admin.json`). */
  readonly adminUrl: string;
  /** Every series of this process (also served at GET /metrics: metricsToken, metricsPort). */
  readonly metrics: ServiceMetrics;
  readonly log: PinoLogger;
  ingestionStatus(): IngestionStatus;
  stop(): Promise<void>;
}

/**
 * Everything in one process: devnet (unless an external RPC is configured) → indexer → event store → projector →
 * API. This is `npm start` and the harness of the cross-system e2e tests. Stop order is the reverse of start.
 */
export async function startSystem(options: SystemOptions): Promise<RunningSystem> {
  const logger = createLogger({ level: options.quiet ? 'silent' : options.logLevel, app: 'all' });
  const metrics = new ServiceMetrics({ app: 'all' });
  // Nest's Logger (used before and beside the API app) writes JSON through the same pino logger.
  if (!options.quiet) Logger.overrideLogger(new PinoNestLogger(logger));
  const opened = await openStorage({
    dataDir: options.dataDir,
    databaseUrl: options.databaseUrl,
    eventStoreUrl: options.eventStoreUrl,
    catalog: systemEventCatalog(),
    // The devnet's chain lives in the data folder too, so lock it even when the event store is on PostgreSQL.
    lockDataDir: true,
  });
  // Every append of every component is timed (event_store_append_duration_seconds).
  const storage: Storage = { ...opened, eventStore: instrumentEventStore(opened.eventStore, metrics) };
  const stops: (() => Promise<void>)[] = [() => storage.close()];
  const stopAll = async () => {
    for (const stop of stops.reverse()) await stop().catch((e) => console.error('shutdown:', e));
    stops.length = 0;
  };

  try {
    const health = new HealthRegistry();
    health.register('event_store', async () => {
      const head = await storage.eventStore.headPosition();
      return { status: 'up', ready: true, details: { head: `${head.commit}:${head.prepare}` } };
    });

    let devnet: RunningDevnet | undefined;
    if (!options.rpcUrl) {
      devnet = await startDevnet({
        port: options.devnetPort,
        dataDir: storage.dataDir,
        seed: options.seed ?? DEFAULT_SEED,
        ledgerIntervalMs: options.ledgerIntervalMs,
        ...(options.retentionLedgers ? { retentionLedgers: options.retentionLedgers } : {}),
      });
      stops.push(() => devnet!.stop());
      health.register('devnet', async () => {
        const latest = devnet!.chain.history.latest();
        return { status: 'up', ready: true, details: { latest_ledger: latest?.sequence ?? null } };
      });
      await registerSeededPools(storage.eventStore, EMBEDDED_NETWORK_ID, devnet.pools);
    }
    const rpcUrl = options.rpcUrl ?? devnet!.rpcUrl;
    const networkPassphrase = options.networkPassphrase ?? devnet!.networkPassphrase;

    const indexing = startNetworkIndexing(storage.eventStore, {
      networkId: EMBEDDED_NETWORK_ID,
      rpcUrl,
      startLedger: options.startLedger ?? 1,
      discovery: true,
      knownWasms: devnet ? DEVNET_STAND_IN_WASMS : [],
      pollIntervalMs: 500,
      schedulerIntervalMs: 2_000,
      logger: options.quiet ? silentLogger : fieldLogger(logger, 'indexer'),
    });
    stops.push(() => indexing.stop());
    metrics.trackIndexer(EMBEDDED_NETWORK_ID, () => indexing.status());
    health.register(`indexer_${EMBEDDED_NETWORK_ID}`, () => indexing.health());

    const readModels = await openReadModelStorage({ db: storage.db, mongodbUrl: options.mongodbUrl });
    stops.push(() => readModels.close());
    const dependencies = new DependencyWatch(logger, metrics);
    stops.push(async () => dependencies.close());
    watchDependencies(health, dependencies, storageDependencies(storage, readModels));
    logger.info(`[read models] ${readModels.description}`);
    const projections = new ProjectionRunner(storage.eventStore, readModels.store, projectionRegistry, {
      log: lineLogger(logger, 'projector'),
      catchUpBatchSize: DEFAULT_CATCH_UP_BATCH_SIZE,
    });
    metrics.trackProjections(() => projections.status());
    await projections.start();
    stops.push(() => projections.stop());
    health.register('projections', () => projectionsHealth(projections, { runs: true }));

    // Opt-in: analysts' Kafka topics only when brokers are configured (the embedded default needs no server).
    const kafkaSettings = loadKafkaRelaySettings(options.kafkaEnv ?? process.env);
    const kafka = kafkaSettings
      ? startKafkaRelay({ db: storage.db, eventStore: storage.eventStore, settings: kafkaSettings, log: lineLogger(logger, 'kafka_relay') })
      : undefined;
    if (kafka) {
      stops.push(() => kafka.stop());
      health.register('kafka_relay', async () => kafka.relay.health());
      metrics.trackRelayLag('kafka', async () => (await kafka.relay.status()).lagEvents);
    }

    const tokens = devnet ? [{ networkId: EMBEDDED_NETWORK_ID, symbol: 'USDC', address: devnet.paymentToken, decimals: 7 }] : [];
    const notifier = await createNotifier({
      db: storage.db,
      eventStore: storage.eventStore,
      tokens,
      log: lineLogger(logger, 'notifier'),
      onDeliveryAttempt: (result) => recordDelivery(metrics, result),
      ...webhookSettings(options.webhook ?? loadAppConfig('all', {}), storage.dataDir),
    });
    metrics.trackProjections(() => notifier.projections());
    metrics.trackWebhooks(notifier.components);
    await notifier.start();
    stops.push(() => notifier.stop());
    health.register('notifier', () => notifier.health());

    const api$ = await composeApiDependencies({
      storage,
      readModels,
      health,
      tokens,
      webhooks: notifier.components.service,
      redisUrl: options.redisUrl,
      dependencies,
      ipRateLimitRpm: options.ipRateLimitRpm,
      jwtSecret: options.jwtSecret,
      networks: [
        {
          id: EMBEDDED_NETWORK_ID,
          rpcUrl,
          passphrase: networkPassphrase,
          explorerUrl: options.explorerUrl ?? 'https://stellar.expert/explorer/testnet',
          tokens,
        },
      ],
    });
    stops.push(() => api$.close());

    const api: NestFastifyApplication = await startApi(api$.deps, {
      port: options.port,
      log: options.quiet ? undefined : logger,
      metrics,
      metricsToken: options.metricsToken,
      http: options.http,
    });
    stops.push(() => api.close());
    // The ops CLI cannot open a folder this process holds: it asks this process instead (docs/operations.md).
    const admin = await startAdminServer({
      dataDir: storage.dataDir,
      projections,
      db: storage.db,
      eventStore: storage.eventStore,
      ...(kafkaSettings ? { kafka: kafkaSettings } : {}),
    });
    stops.push(() => admin.close());
    if (options.metricsPort !== undefined) {
      const metricsServer = await startMetricsServer(metrics, options.metricsPort);
      stops.push(() => metricsServer.close());
    }
    const address = api.getHttpServer().address();
    const port = typeof address === 'object' && address ? address.port : options.port;

    return {
      apiUrl: `http://localhost:${port}/api/agent`,
      healthUrl: `http://localhost:${port}/health`,
      rpcUrl,
      networkPassphrase,
      friendbotUrl: devnet?.friendbotUrl,
      networkId: EMBEDDED_NETWORK_ID,
      storage,
      readModels,
      db: storage.db,
      eventStore: storage.eventStore,
      devnet,
      projections,
      kafkaRelay: kafka?.relay,
      adminUrl: admin.url,
      metrics,
      log: logger,
      ingestionStatus: () => indexing.status(),
      stop: stopAll,
    };
  } catch (e) {
    await stopAll();
    throw e;
  }
}
