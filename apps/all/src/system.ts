import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { startDevnet, DEFAULT_SEED, type RunningDevnet } from '@dob/devnet';
import type { EventStore } from '@dob/event-store';
import { DEVNET_KNOWN_WASMS, registerSeededPools, silentLogger, startNetworkIndexing, type IngestionStatus } from '@dob/indexer';
import { ProjectionRunner, createSqlReadModelStore, projectionRegistry, projectionsHealth } from '@dob/projections';
import { HealthRegistry, loadAppConfig, openStorage, type Storage } from '@dob/runtime';
import type { SqlDatabase } from '@dob/sql';
import { createNotifier, webhookSettings, type WebhookConfig } from '@dob/webhooks';
import { startApi } from '../../api/src/bootstrap';
import { composeApiDependencies } from '../../api/src/compose-api-dependencies';
import { systemEventCatalog } from '../../api/src/system-event-catalog';

/** The embedded default serves Stellar network id 9 (testnet's id) from the local devnet (brief: Networks). */
export const EMBEDDED_NETWORK_ID = 9;

export interface SystemOptions {
  readonly dataDir: string;
  /** API port; 0 picks a free one. */
  readonly port: number;
  /** Devnet RPC port; 0 picks a free one. Ignored when rpcUrl is given. */
  readonly devnetPort: number;
  /** PostgreSQL instead of embedded PGlite. */
  readonly databaseUrl?: string;
  /** An external Stellar RPC for network 9 instead of the embedded devnet. */
  readonly rpcUrl?: string;
  readonly networkPassphrase?: string;
  /** Seed the devnet on first start (default true: the deterministic default seed). */
  readonly seed?: boolean | number;
  readonly ledgerIntervalMs?: number;
  readonly startLedger?: number;
  /** Redis for the rate limiter (shared by API instances); unset = in-process. */
  readonly redisUrl?: string;
  /** JWT signing key; unset = a key file kept in the data folder. */
  readonly jwtSecret?: string;
  /** Explorer base for `stellar_explorer_url` (network 9 is testnet's id). */
  readonly explorerUrl?: string;
  /** WEBHOOK_* settings (secret key, SSRF allow-list for local receivers, CA, retry schedule); default: the defaults. */
  readonly webhook?: WebhookConfig;
  readonly retentionLedgers?: number;
  /** Quiet logs (tests). */
  readonly quiet?: boolean;
}

export interface RunningSystem {
  readonly apiUrl: string;
  readonly healthUrl: string;
  readonly rpcUrl: string;
  readonly networkPassphrase: string;
  readonly friendbotUrl?: string;
  readonly networkId: number;
  readonly storage: Storage;
  readonly db: SqlDatabase;
  readonly eventStore: EventStore;
  readonly devnet?: RunningDevnet;
  readonly projections: ProjectionRunner<unknown>;
  ingestionStatus(): IngestionStatus;
  stop(): Promise<void>;
}

/**
 * Everything in one process: devnet (unless an external RPC is configured) → indexer → event store → projector →
 * API. This is `npm start` and the harness of the cross-system e2e tests. Stop order is the reverse of start.
 */
export async function startSystem(options: SystemOptions): Promise<RunningSystem> {
  const log = options.quiet ? () => undefined : (line: string) => console.log(line);
  const storage = await openStorage({
    dataDir: options.dataDir,
    databaseUrl: options.databaseUrl,
    catalog: systemEventCatalog(),
    // The devnet's chain lives in the data folder too, so lock it even when the event store is on PostgreSQL.
    lockDataDir: true,
  });
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
      knownWasms: devnet ? DEVNET_KNOWN_WASMS : [],
      pollIntervalMs: 500,
      schedulerIntervalMs: 2_000,
      ...(options.quiet ? { logger: silentLogger } : {}),
    });
    stops.push(() => indexing.stop());
    health.register(`indexer_${EMBEDDED_NETWORK_ID}`, () => indexing.health());

    const projections = new ProjectionRunner(storage.eventStore, createSqlReadModelStore(storage.db), projectionRegistry, {
      log,
    });
    await projections.start();
    stops.push(() => projections.stop());
    health.register('projections', () => projectionsHealth(projections, { runs: true }));

    const tokens = devnet ? [{ networkId: EMBEDDED_NETWORK_ID, symbol: 'USDC', address: devnet.paymentToken, decimals: 7 }] : [];
    const notifier = await createNotifier({
      db: storage.db,
      eventStore: storage.eventStore,
      tokens,
      log,
      ...webhookSettings(options.webhook ?? loadAppConfig('all', {}), storage.dataDir),
    });
    await notifier.start();
    stops.push(() => notifier.stop());
    health.register('notifier', () => notifier.health());

    const api$ = await composeApiDependencies({
      storage,
      health,
      tokens,
      webhooks: notifier.components.service,
      redisUrl: options.redisUrl,
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

    const api: NestFastifyApplication = await startApi(api$.deps,
      { port: options.port, logger: !options.quiet },
    );
    stops.push(() => api.close());
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
      db: storage.db,
      eventStore: storage.eventStore,
      devnet,
      projections: projections as ProjectionRunner<unknown>,
      ingestionStatus: () => indexing.status(),
      stop: stopAll,
    };
  } catch (e) {
    await stopAll();
    throw e;
  }
}
