import { IngestionCursorAdvanced, derivedEventId, indexerStreamId, isEventOf } from '@dob/domain';
import { WrongExpectedVersionError, type EventStore, type RecordedEvent } from '@dob/event-store';
import type { HeldLease, LeaseClaim, LeaseKeeper } from '@dob/leases';
import { startNetworkIndexing, type NetworkIndexing, type NetworkIndexingOptions } from '../indexer-runtime';
import type { IngestionStatus } from '../ingestion/ingestion-status';
import { TimeDrivenScheduler } from '../scheduler/time-driven-scheduler';

/** The lease of one network's ingestion, and of the deployment's one time-driven scheduler. */
export const indexerLeaseName = (networkId: number) => `indexer:${networkId}`;
export const SCHEDULER_LEASE = 'scheduler';

export interface LeasedIndexing {
  /** The running ingestion while this process owns the network, else null. */
  current(): NetworkIndexing | null;
  status(): IngestionStatus | null;
  /** ComponentHealth shape: a standby is healthy (up and ready) and says who it waits behind. */
  health(): Promise<{ status: 'up' | 'down'; ready: boolean; waitingFor?: string; details: Record<string, unknown> }>;
  stop(): Promise<void>;
}

/**
 * Several indexers for one network: only the holder of `indexer:<networkId>` ingests; the others stand by and take
 * over, from the stored cursor, once its lease lapses. Fencing uses the indexer stream's expected revision, which
 * every window's commit (cursor + events, one appendMany) already carries: a new holder first re-commits the cursor it
 * resumes from as the stream's next revision, so the old holder's next commit — still expecting the revision it last
 * wrote — fails in the append's own transaction and it halts; whatever it committed before that is the new holder's
 * starting point. The scheduler runs under its own lease in one process at a time (its appends are idempotent too).
 */
export function startLeasedNetworkIndexing(store: EventStore, options: NetworkIndexingOptions, keeper: LeaseKeeper): LeasedIndexing {
  const log = options.logger;
  let running: NetworkIndexing | null = null;
  let last: IngestionStatus | null = null;
  let change: Promise<void> = Promise.resolve();
  const serially = (fn: () => Promise<void>) => (change = change.then(fn).catch((e) => log?.error('indexer ownership change failed', { error: String(e) })));

  let stopped = false;
  const claim: LeaseClaim = keeper.claim(indexerLeaseName(options.networkId), {
    onAcquired: (lease) =>
      void serially(async () => {
        // The fencing append retried while the lease is ours: a failure (the database gone a moment, or the append
        // landed and its answer was lost) left this process renewing the lease with nothing ingesting — no standby
        // takes a lease that is renewed — until it lost the lease. A retry re-reads the tail, so one that landed is
        // found (same id: an idempotent no-op).
        for (;;) {
          if (stopped || claim.held()?.token !== lease.token) return; // lost again meanwhile
          try {
            await fenceOutPreviousHolder(store, options, lease);
            break;
          } catch (e) {
            log?.warn('fencing append failed, retrying', { networkId: options.networkId, token: lease.token, error: String(e) });
            await new Promise((r) => setTimeout(r, keeper.timing.heartbeatMs));
          }
        }
        running = startNetworkIndexing(store, { ...options, scheduler: false });
        log?.info('ingesting as owner', { networkId: options.networkId, token: lease.token });
      }),
    onLost: () =>
      serially(async () => {
        const stopping = running;
        running = null;
        if (stopping) {
          last = stopping.status();
          await stopping.stop();
        }
      }),
    progress: () => {
      const s = running?.status();
      return s ? { state: s.state, next_ledger: s.nextLedger, ledgers_behind: s.ledgersBehind } : null;
    },
  });

  const scheduler = options.scheduler === false ? null : new TimeDrivenScheduler(store);
  if (scheduler) {
    keeper.claim(SCHEDULER_LEASE, {
      onAcquired: () => scheduler.start(options.schedulerIntervalMs ?? 5_000, (err) => log?.warn('scheduler tick failed', { error: String(err) })),
      onLost: () => scheduler.stop(),
    });
  }

  return {
    current: () => running,
    status: () => running?.status() ?? last,
    async health() {
      if (running) {
        const h = await running.health();
        return { ...h, details: { ...h.details, role: 'owner', token: claim.held()?.token ?? null } };
      }
      return { status: 'up', ready: true, details: { role: 'standby', lease: claim.name } };
    },
    async stop() {
      stopped = true;
      scheduler?.stop();
      await change;
      await running?.stop();
      running = null;
    },
  };
}

/**
 * The new holder's first write: the stored cursor committed again as the indexer stream's next revision (no events,
 * an id of its own per lease token). Retried when the old holder commits a window in between: then its window is
 * part of what the new holder resumes from.
 */
async function fenceOutPreviousHolder(store: EventStore, options: NetworkIndexingOptions, lease: HeldLease): Promise<void> {
  const net = options.networkId;
  const streamId = indexerStreamId(net);
  for (let attempt = 0; ; attempt++) {
    // The stream's tail, newest first: every window ends with its cursor, so it is in the first few events; the
    // whole stream is read only if a tail of discoveries hides it (start-up stays bounded, as the ingestor's).
    const tail = await store.readStream(streamId, { direction: 'backwards', maxCount: 100 });
    const revision = tail.length ? tail[0].revision : -1;
    const latestCursor = (events: readonly RecordedEvent[]) => events.find((e) => isEventOf(e, [IngestionCursorAdvanced.type]))?.data;
    const cursor = latestCursor(tail) ?? (tail.length === 100 ? latestCursor((await store.readStream(streamId)).reverse()) : undefined);
    const from = cursor?.from_ledger ?? options.startLedger;
    const to = cursor?.to_ledger ?? options.startLedger - 1;
    try {
      await store.appendToStream(
        streamId,
        [
          {
            id: derivedEventId(net, 'cursor', from, to, `lease-${lease.token}`),
            type: IngestionCursorAdvanced.type,
            version: 1,
            data: IngestionCursorAdvanced.payload({
              network_id: net,
              from_ledger: from,
              to_ledger: to,
              next_ledger: cursor?.next_ledger ?? options.startLedger,
              latest_ledger: cursor?.latest_ledger ?? 0,
              latest_ledger_closed_at: null,
              chain_events: 0,
              domain_events: 0,
              undecoded: 0,
            }),
          },
        ],
        revision < 0 ? 'no_stream' : revision,
      );
      return;
    } catch (e) {
      if (!(e instanceof WrongExpectedVersionError) || attempt >= 20) throw e;
    }
  }
}
