import type { EventStore } from '@dob/event-store';
import { KNOWN_DOB_WASMS, WasmRegistry, type KnownWasm } from './decoding/contract-identity';
import { consoleLogger, type IndexerLogger, type IngestionAlarm, type IngestionStatus } from './ingestion/ingestion-status';
import { NetworkIngestor, type NetworkIngestorConfig } from './ingestion/network-ingestor';
import { createStellarChainRpc } from './rpc/stellar-rpc.adapter';
import type { ChainRpc } from './rpc/chain-rpc.port';
import { TimeDrivenScheduler } from './scheduler/time-driven-scheduler';

export interface NetworkIndexingOptions extends Omit<NetworkIngestorConfig, 'wasmRegistry'> {
  readonly rpcUrl?: string;
  /** Overrides the HTTP adapter (tests). */
  readonly rpc?: ChainRpc;
  /** Extra known wasm hashes on top of KNOWN_DOB_WASMS (e.g. the devnet's). */
  readonly knownWasms?: readonly KnownWasm[];
  readonly schedulerIntervalMs?: number;
  /** Run the time-driven scheduler here (one per deployment is enough; it is idempotent anyway). */
  readonly scheduler?: boolean;
}

export interface NetworkIndexing {
  readonly ingestor: NetworkIngestor;
  readonly scheduler: TimeDrivenScheduler | null;
  status(): IngestionStatus;
  /** Shape of @dob/runtime ComponentHealth: halted ⇒ up but not ready, with the alarm in details. */
  health(): Promise<{ status: 'up' | 'down'; ready: boolean; waitingFor?: string; details: Record<string, unknown> }>;
  stop(): Promise<void>;
}

/** Composition used by apps/indexer and the all-in-one app: ingestion loop + scheduler for one network. */
export function startNetworkIndexing(store: EventStore, options: NetworkIndexingOptions): NetworkIndexing {
  const logger: IndexerLogger = options.logger ?? consoleLogger;
  const rpc = options.rpc ?? createStellarChainRpc({ rpcUrl: required(options.rpcUrl, 'rpcUrl') });
  const onAlarm = (a: IngestionAlarm) => {
    logger.error(`ALARM ${a.kind}: ${a.message}`, { networkId: a.networkId });
    options.onAlarm?.(a);
  };
  const ingestor = new NetworkIngestor(store, rpc, {
    ...options,
    logger,
    onAlarm,
    wasmRegistry: new WasmRegistry([...KNOWN_DOB_WASMS, ...(options.knownWasms ?? [])]),
  });
  const running = ingestor.run().catch((err) => logger.error('ingestion loop crashed', { error: String(err) }));
  const scheduler = options.scheduler === false ? null : new TimeDrivenScheduler(store);
  scheduler?.start(options.schedulerIntervalMs ?? 5_000, (err) => logger.warn('scheduler tick failed', { error: String(err) }));
  return {
    ingestor,
    scheduler,
    status: () => ingestor.status(),
    async health() {
      const s = ingestor.status();
      return { status: 'up', ready: s.state === 'live', ...(s.state === 'live' ? {} : { waitingFor: waitingFor(s, options.rpcUrl) }), details: { ...s } };
    },
    async stop() {
      ingestor.stop();
      scheduler?.stop();
      await running;
    },
  };
}

/** What a not-yet-live ingestion waits for, for /health. */
function waitingFor(s: IngestionStatus, rpcUrl: string | undefined): string {
  switch (s.state) {
    case 'halted':
      return `halted: ${s.haltReason}`;
    case 'degraded':
      return `the RPC${rpcUrl ? ` ${rpcUrl}` : ''} (${s.lastError ?? 'failing'}); retrying`;
    case 'backfilling':
      return `backfilling: ledger ${s.nextLedger} of ${s.latestLedger} (${s.ledgersBehind} behind)`;
    default:
      return 'its first RPC answer';
  }
}

function required<T>(v: T | undefined, name: string): T {
  if (v === undefined) throw new Error(`${name} is required`);
  return v;
}
