import { PinoNestLogger } from '@dob/api-http';
import { relayDependencies, startApiApp, startIndexer, startNotifier, startProjector, startRelay, type AppContext } from '@dob/compositions';
import { DEVNET_STAND_IN_WASMS, startDevnet, DEFAULT_SEED, type RunningDevnet } from '@dob/devnet';
import type { EventStore } from '@dob/event-store';
import { registerSeededPools, type IngestionStatus } from '@dob/indexer';
import type { ProjectionRunner } from '@dob/projections';
import { openReadModelStorage, type ReadModelStorage } from '@dob/read-models';
import type { KafkaRelay, KafkaRelaySettings } from '@dob/kafka-relay';
import { HealthRegistry, loadAppConfig, openStorage, storageDependencies, systemEventCatalog, watchDependencies, type Storage } from '@dob/runtime';
import { DependencyWatch, ServiceMetrics, startMetricsServer, createLogger, instrumentEventStore, type Logger as PinoLogger } from '@dob/observability';
import type { SqlDatabase } from '@dob/sql';
import type { WebhookConfig } from '@dob/webhooks';
import type { HttpLimits } from '@dob/api-http';
import { Logger } from '@nestjs/common';
import { startAdminServer } from './admin/admin-server';

/** The embedded default serves Stellar network id 9 (testnet's id) from the local devnet (docs/decisions.md#d5). */
export const EMBEDDED_NETWORK_ID = 9;

/** The embedded devnet closes a ledger a second: a live indexer asks for the next one at twice that rate. */
export const EMBEDDED_INDEXER_POLL_MS = 500;
/** Claims become available and campaigns fail by the clock: the scheduler looks every other ledger. */
export const EMBEDDED_SCHEDULER_MS = 2_000;

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
  /** Each of the API's RPC calls bounded by this (STELLAR_RPC_TIMEOUT_MS). */
  readonly rpcTimeoutMs?: number;
  /** WEBHOOK_* settings (secret key, SSRF allow-list for local receivers, CA, retry schedule); default: the defaults. */
  readonly webhook?: WebhookConfig;
  readonly retentionLedgers?: number;
  /** The Kafka relay's settings (kafkaRelaySettings of the configuration); given, the relay runs too (docs/kafka.md). */
  readonly kafka?: KafkaRelaySettings | null;
  /** INDEXER_POLL_MS: a live indexer's wait between RPC polls (default EMBEDDED_INDEXER_POLL_MS). */
  readonly indexerPollMs?: number;
  /** INDEXER_RPC_SLOW_MS: an RPC call unanswered this long makes the indexer degraded (default 10 s). */
  readonly indexerRpcSlowMs?: number;
  /** INDEXER_SCHEDULER_MS: the time-driven scheduler's interval (default EMBEDDED_SCHEDULER_MS). */
  readonly schedulerMs?: number;
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

    // Every app below is composed exactly as it is alone (libs/compositions), over this process's shared context.
    const context: AppContext = { storage, health, metrics, log: logger };

    const indexing = startIndexer(context, {
      networkId: EMBEDDED_NETWORK_ID,
      rpcUrl,
      startLedger: options.startLedger ?? 1,
      discovery: true,
      knownWasms: devnet ? DEVNET_STAND_IN_WASMS : [],
      pollIntervalMs: options.indexerPollMs ?? EMBEDDED_INDEXER_POLL_MS,
      ...(options.indexerRpcSlowMs ? { rpcSlowMs: options.indexerRpcSlowMs } : {}),
      schedulerIntervalMs: options.schedulerMs ?? EMBEDDED_SCHEDULER_MS,
    });
    stops.push(() => indexing.stop());

    const readModels = await openReadModelStorage({ db: storage.db, mongodbUrl: options.mongodbUrl });
    stops.push(() => readModels.close());
    const dependencies = new DependencyWatch(logger, metrics);
    stops.push(async () => dependencies.close());
    watchDependencies(health, dependencies, storageDependencies(storage, readModels));
    logger.info(`[read models] ${readModels.description}`);

    const projector = await startProjector(context, { readModels });
    stops.push(() => projector.stop());

    // Opt-in: analysts' Kafka topics only when brokers are configured (the embedded default needs no server).
    const kafka = options.kafka ? startRelay(context, { settings: options.kafka }) : undefined;
    if (kafka) {
      stops.push(() => kafka.stop());
      watchDependencies(health, dependencies, relayDependencies(kafka.relay));
    }

    const tokens = devnet ? [{ networkId: EMBEDDED_NETWORK_ID, symbol: 'USDC', address: devnet.paymentToken, decimals: 7 }] : [];
    const notifier = await startNotifier(context, { tokens, webhook: options.webhook ?? loadAppConfig('all', {}) });
    stops.push(() => notifier.stop());

    const api = await startApiApp(context, {
      readModels,
      tokens,
      webhooks: notifier.notifier.components.service,
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
          rpcTimeoutMs: options.rpcTimeoutMs,
        },
      ],
      port: options.port,
      quiet: options.quiet,
      metricsToken: options.metricsToken,
      http: options.http,
    });
    stops.push(() => api.stop());
    // The ops CLI cannot open a folder this process holds: it asks this process instead (docs/operations.md).
    const admin = await startAdminServer({
      dataDir: storage.dataDir,
      projections: projector.runner,
      db: storage.db,
      eventStore: storage.eventStore,
      ...(options.kafka ? { kafka: options.kafka } : {}),
    });
    stops.push(() => admin.close());
    if (options.metricsPort !== undefined) {
      const metricsServer = await startMetricsServer(metrics, options.metricsPort);
      stops.push(() => metricsServer.close());
    }
    const port = api.port;

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
      projections: projector.runner,
      kafkaRelay: kafka?.relay,
      adminUrl: admin.url,
      metrics,
      log: logger,
      // Not leased here, so the indexer always has a status.
      ingestionStatus: () => indexing.status()!,
      stop: stopAll,
    };
  } catch (e) {
    await stopAll();
    throw e;
  }
}
