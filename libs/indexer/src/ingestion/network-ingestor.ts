import { randomUUID } from 'node:crypto';
import {
  ContractDiscovered,
  IngestionCursorAdvanced,
  IngestionSnapshotTaken,
  PoolInitialized,
  derivedEventId,
  indexerStreamId,
  isEventOf,
  poolStreamId,
  type PoolType,
} from '@dob/domain';
import { positionFromString, positionToString, WrongExpectedVersionError, type EventStore, type NewEvent, type StreamAppend } from '@dob/event-store';
import type { RawChainEvent } from '../decoding/chain-event';
import { KNOWN_DOB_WASMS, WasmRegistry, type ContractIdentity } from '../decoding/contract-identity';
import { decodeChainEvent, type DecodedDomainEvent } from '../decoding/decode-chain-event';
import { confirmCandidates, confirmInBatches, confirmRegistered, type DiscoveryCandidate } from '../discovery/contract-discovery';
import { isRetentionError, type ChainRpc, type RpcCallOptions, type RpcEventFilter } from '../rpc/chain-rpc.port';
import { DEFAULT_BACKOFF, sleepUnlessStopped, withBackoff, withTimeout, type BackoffOptions } from './backoff';
import { contractFilters, discoveryFilters, partyTransferFilters, toRequests } from './filter-plan';
import { silentLogger, type IndexerLogger, type IngestionAlarm, type IngestionStatus } from './ingestion-status';
import { attachCapTables } from './cap-table-enrichment';
import { ingestionSnapshotStreamId, readLatestSnapshot, type IngestionSnapshot } from './ingestion-snapshot';
import { ListingBook, type OpenListing } from './listing-book';
import { RegisteredPools } from './registered-pools';
import { WatchSet, type DiscoverySource } from './watch-set';

type Discovery = { identity: ContractIdentity; source: DiscoverySource; ledger: number };
/** A window's chain events deduplicated, in chain order, cut at a ledger boundary, and decoded (alarms held until used). */
type Window = { to: number; events: RawChainEvent[]; decoded: { decoded: DecodedDomainEvent[]; undecoded: number }; alarms: string[] };
/**
 * Events fetched for a ledger range; `to` may end before the range asked for when a fetch budget cut it. A prefetch
 * also decodes them (`window`), while the window before is being appended.
 */
type Fetched = { events: RawChainEvent[]; to: number; window?: Window };
/** The next window's watched events, fetched while the current window is being appended. */
type Prefetch = { from: number; watchVersion: number; result: Promise<Fetched | null> };

export interface NetworkIngestorConfig {
  readonly networkId: number;
  /** Where backfill starts when the network has no cursor yet. */
  readonly startLedger: number;
  /** Contracts watched regardless of discovery (e.g. configured pools). */
  readonly contracts?: readonly ContractIdentity[];
  /** Discover Dob contracts from `init` / `cf_init` events (default true). */
  readonly discovery?: boolean;
  /** Watch pools registered with `registerPool` (PoolRegistered in the store), default true. */
  readonly registeredPools?: boolean;
  readonly wasmRegistry?: WasmRegistry;
  /** getEvents page size (stellar-rpc max 10,000). */
  readonly pageLimit?: number;
  /** Ledgers scanned per step while backfilling. */
  readonly windowLedgers?: number;
  /** Upper bound of chain events committed in one append (the window is cut at a ledger boundary). */
  readonly maxEventsPerAppend?: number;
  /** A cursor is written at least this often even without events, so a restart never lands outside retention. */
  readonly checkpointEveryLedgers?: number;
  /**
   * A snapshot of the indexer's state is committed with every this many cursors (and with the first one when there
   * is none): a restart reads the last snapshot and at most this many windows' indexer events, whatever the history.
   */
  readonly snapshotEveryWindows?: number;
  readonly pollIntervalMs?: number;
  readonly rpcTimeoutMs?: number;
  /**
   * A call unanswered this long makes the status degraded, naming the silent RPC (default 10 s): a call may wait up to
   * rpcTimeoutMs for a large page, but /health must not say "live" through a silent RPC until that passes.
   */
  readonly rpcSlowMs?: number;
  readonly backoff?: Partial<BackoffOptions>;
  readonly sleep?: (ms: number) => Promise<void>;
  readonly clock?: () => Date;
  readonly logger?: IndexerLogger;
  readonly onAlarm?: (alarm: IngestionAlarm) => void;
}

export type StepOutcome = 'advanced' | 'idle' | 'halted';

/** Stellar's target ledger close time, used only to estimate secondsBehind. */
const SECONDS_PER_LEDGER = 5;

/**
 * Ingests one network: backfill from the start ledger, then live tail, from Stellar RPC getEvents.
 * Each step scans a ledger window and commits the window's domain events together with an
 * IngestionCursorAdvanced on `indexer-<networkId>` in ONE appendMany, with the indexer stream's expected version
 * = the revision last read: cursor and events commit atomically, and a second indexer on the same network fails
 * with WrongExpectedVersionError (halts loudly) instead of interleaving.
 */
export class NetworkIngestor {
  private readonly cfg: Required<
    Pick<
      NetworkIngestorConfig,
      'pageLimit' | 'windowLedgers' | 'maxEventsPerAppend' | 'checkpointEveryLedgers' | 'snapshotEveryWindows' | 'pollIntervalMs' | 'rpcTimeoutMs' | 'rpcSlowMs'
    >
  >;
  private readonly backoff: BackoffOptions;
  private readonly registry: WasmRegistry;
  private readonly logger: IndexerLogger;
  private watch: WatchSet;
  /** Candidates whose wasm hash is not Dob: never asked again in this process. */
  private readonly rejected = new Set<string>();
  /** The registered pools among them: a snapshot lists them so a restart asks again (configuration may have changed). */
  private readonly rejectedRegistered = new Set<string>();
  private registered: RegisteredPools;
  /** Cursors committed since the last snapshot (Infinity: none yet, the next commit takes one). */
  private windowsSinceSnapshot = Infinity;
  private listings = new ListingBook();
  private loaded = false;
  private indexerRevision = -1;
  private nextLedger = 0;
  private lastCheckpointLedger = 0;
  private stopped = false;
  private readonly stopping = new AbortController();
  private current: IngestionStatus;
  private prefetch: Prefetch | null = null;
  /**
   * Per-process id mixed into the cursor event id: a retry by this process re-appends the same id (idempotent),
   * while a second process ingesting the same window appends a different one and hits the expected-version check.
   */
  private readonly instanceId = randomUUID();

  constructor(
    private readonly store: EventStore,
    private readonly rpc: ChainRpc,
    private readonly config: NetworkIngestorConfig,
  ) {
    this.cfg = {
      pageLimit: Math.min(config.pageLimit ?? 10_000, 10_000),
      windowLedgers: config.windowLedgers ?? 2_000,
      maxEventsPerAppend: config.maxEventsPerAppend ?? 10_000,
      checkpointEveryLedgers: config.checkpointEveryLedgers ?? 720,
      snapshotEveryWindows: config.snapshotEveryWindows ?? 100,
      pollIntervalMs: config.pollIntervalMs ?? 2_000,
      rpcTimeoutMs: config.rpcTimeoutMs ?? 30_000,
      rpcSlowMs: config.rpcSlowMs ?? 10_000,
    };
    this.backoff = {
      ...DEFAULT_BACKOFF,
      sleep: config.sleep ?? ((ms) => sleepUnlessStopped(ms, this.stopping.signal)),
      ...config.backoff,
      // Retention errors cannot heal by retrying; a stopping indexer does not retry either.
      isFatal: (err) => isRetentionError(err) || this.stopping.signal.aborted,
      onRetry: ({ attempt, delayMs, error }) => {
        this.logger.warn('rpc call failed, retrying', { networkId: config.networkId, attempt, delayMs, error: String(error) });
        // Degraded from the first failed call, not once the retries run out (8 attempts can take a minute): /health
        // says the chain is away while it is; the next window's lag update makes it live again.
        if (this.current.state !== 'halted') this.update({ state: 'degraded', lastError: String(error) });
      },
    };
    this.registry = config.wasmRegistry ?? new WasmRegistry(KNOWN_DOB_WASMS);
    this.registered = new RegisteredPools(store, config.networkId);
    this.logger = config.logger ?? silentLogger;
    this.watch = new WatchSet(config.contracts ?? []);
    this.current = {
      networkId: config.networkId,
      state: 'starting',
      haltReason: null,
      haltKind: null,
      nextLedger: null,
      latestLedger: null,
      oldestLedger: null,
      ledgersBehind: null,
      secondsBehind: null,
      watchedContracts: this.watch.size,
      undecodedTotal: 0,
      eventsIngested: 0,
      lastError: null,
      updatedAt: null,
    };
  }

  status(): IngestionStatus {
    return this.current;
  }

  /** Watched contracts (configured + discovered), e.g. for the scheduler or ops. */
  watched(): ContractIdentity[] {
    return this.watch.ids().map((id) => this.watch.get(id)!);
  }

  stop(): void {
    this.stopped = true;
    this.stopping.abort(new Error('indexer stopping')); // abandons an RPC call in flight
  }

  /** Steps until stopped or halted; RPC outages degrade the status and are retried after the poll interval. */
  async run(): Promise<void> {
    const sleep = this.config.sleep ?? ((ms: number) => sleepUnlessStopped(ms, this.stopping.signal));
    while (!this.stopped) {
      let outcome: StepOutcome;
      try {
        outcome = await this.step();
      } catch (err) {
        this.update({ state: 'degraded', lastError: String(err) });
        this.alarm('rpc_unavailable', `ingestion step failed: ${String(err)}`);
        outcome = 'idle';
      }
      if (outcome === 'halted') return;
      if (outcome === 'idle') await sleep(this.cfg.pollIntervalMs);
    }
  }

  /** One window: discover, fetch, decode, commit atomically. */
  async step(): Promise<StepOutcome> {
    if (this.current.state === 'halted') return 'halted';
    await this.load();
    const health = await this.call((o) => this.rpc.getHealth(o));
    this.update({ latestLedger: health.latestLedger, oldestLedger: health.oldestLedger });
    if (this.nextLedger < health.oldestLedger) {
      return this.halt(
        'retention_gap',
        `cursor at ledger ${this.nextLedger} is older than the RPC's oldest ledger ${health.oldestLedger}: ` +
          `ledgers ${this.nextLedger}..${health.oldestLedger - 1} cannot be read from this RPC; ingestion halted ` +
          `(point the network at an RPC/archive that retains them; never skipped silently)`,
      );
    }
    if (this.nextLedger > health.latestLedger) {
      this.updateLag(health.latestLedger);
      return 'idle';
    }
    const from = this.nextLedger;
    const prefetch = this.prefetch?.from === from ? this.prefetch : null;
    this.prefetch = null;
    const prefetched = prefetch && (await prefetch.result);
    let to = prefetched ? prefetched.to : Math.min(from + this.cfg.windowLedgers - 1, health.latestLedger);
    try {
      const discovered = this.config.discovery === false ? [] : await this.discover(from, to);
      const registered = this.config.registeredPools === false ? [] : await this.watchRegistered(from);
      discovered.push(...registered);
      // The prefetched events (and their decoding) stand only if the watch set has not changed since they were asked for.
      const usable = prefetched && prefetch.watchVersion === this.watch.version ? prefetched : null;
      const fetched = usable ?? (await this.fetchWatched(this.watch.ids(), this.watch.parties(), from, to, this.cfg.maxEventsPerAppend));
      to = fetched.to;
      const more = await this.followParticipationTokens(fetched.events, discovered, from, to);
      if (registered.length)
        more.push(
          ...(await this.catchUp(
            registered.map((r) => r.identity),
            discovered,
            from,
            health.oldestLedger,
          )),
        );
      const window =
        usable?.window && more.length === 0 && prefetch!.watchVersion === this.watch.version
          ? usable.window
          : this.window(fetched.events.concat(more), from, to);
      to = window.to;
      for (const message of window.alarms) this.alarm('undecoded_event', message);
      const { events, decoded } = window;
      await attachCapTables(decoded.decoded, (txHash) => this.call((o) => this.rpc.getInvocation(txHash, o)));
      const listings = this.listings.stage(decoded.decoded);
      const committing = this.commit(from, to, health.latestLedger, events.length, decoded, discovered, listings.open);
      // Fetching the next window overlaps this window's append (one window ahead at most: bounded memory).
      this.prefetchWindow(to + 1, health.latestLedger);
      await committing; // on failure the next step reloads, dropping this prefetch: it starts from this window again
      listings.keep();
    } catch (err) {
      if (isRetentionError(err)) {
        return this.halt('retention_gap', `RPC refused ledgers from ${from}: ${String(err)}; ingestion halted`);
      }
      if (err instanceof WrongExpectedVersionError) {
        const conflict = err;
        return this.halt(
          'concurrent_indexer',
          `indexer stream ${conflict.streamId} moved under us (expected ${conflict.expected}, actual ${conflict.actual}): another ` +
            `indexer is ingesting network ${this.config.networkId}; halted`,
        );
      }
      // What this step learned before it failed (contracts discovered and watched, registrations read) is not in the
      // store: kept in memory, the retry would skip rediscovering those contracts, and their ContractDiscovered would
      // never be committed (lost for good at the next restart). The next step reloads the state from the store, which
      // also finds a window whose append did land before the connection failed.
      this.loaded = false;
      throw err;
    }
    this.nextLedger = to + 1;
    this.updateLag(health.latestLedger);
    return 'advanced';
  }

  /**
   * Rebuilds the state from the store: from the last snapshot and the indexer events after it (bounded by
   * snapshotEveryWindows, whatever the length of the history), or, with no snapshot yet, from the whole indexer
   * stream — then the next commit takes a snapshot.
   */
  private async load(): Promise<void> {
    if (this.loaded) return;
    const net = this.config.networkId;
    let latest = await readLatestSnapshot(this.store, net);
    // From scratch, also when a failed step left the state ahead of the store.
    this.prefetch = null;
    this.watch = new WatchSet(this.config.contracts ?? []);
    this.registered = new RegisteredPools(this.store, net);
    this.indexerRevision = -1;
    this.lastCheckpointLedger = 0;
    this.nextLedger = this.config.startLedger;
    let stream = latest ? await this.store.readStream(indexerStreamId(net), { fromRevision: latest.snapshot.indexer_revision }) : [];
    // The snapshot stands only if the cursor it names is where it says (else: the whole stream, as without one).
    const anchor = stream.shift();
    if (latest && anchor && isEventOf(anchor, [IngestionCursorAdvanced.type]) && anchor.data.next_ledger === latest.snapshot.next_ledger) {
      this.restore(latest.snapshot);
    } else {
      if (latest) this.logger.warn('ingestion snapshot does not match the indexer stream; rebuilding from the whole stream', { networkId: net });
      latest = null;
      stream = await this.store.readStream(indexerStreamId(net));
    }
    this.windowsSinceSnapshot = latest ? 0 : Infinity;
    for (const e of stream) {
      this.indexerRevision = e.revision;
      if (isEventOf(e, [IngestionCursorAdvanced.type])) {
        this.nextLedger = e.data.next_ledger;
        this.lastCheckpointLedger = e.data.to_ledger;
        this.windowsSinceSnapshot += 1;
      } else if (isEventOf(e, [ContractDiscovered.type])) {
        const d = e.data;
        this.watch.add({ contractId: d.contract_id, kind: d.kind, version: d.version, wasmHash: d.wasm_hash, pool: d.pool });
      }
    }
    // A participation token's pool type (crowdfunding pools mint allocations) is on its pool's PoolInitialized, not on
    // ContractDiscovered: read it back so a restart decodes the token's mints exactly as before.
    for (const id of this.watch.ids()) {
      const pt = this.watch.get(id)!;
      if (pt.kind !== 'participation_token' || !pt.pool || pt.poolType) continue;
      this.watch.add({ ...pt, poolType: await this.poolTypeOf(pt.pool) });
    }
    this.listings = await ListingBook.load(this.store, net, latest ? { open: latest.snapshot.open_listings, after: latest.position } : undefined);
    this.loaded = true;
    this.update({ nextLedger: this.nextLedger, watchedContracts: this.watch.size });
    this.logger.info('ingestion resumed', { networkId: this.config.networkId, nextLedger: this.nextLedger, watched: this.watch.size });
  }

  private restore(s: IngestionSnapshot): void {
    this.indexerRevision = s.indexer_revision;
    this.nextLedger = s.next_ledger;
    this.lastCheckpointLedger = s.checkpoint_ledger;
    for (const c of s.watched) {
      this.watch.add({ contractId: c.contract_id, kind: c.kind, version: c.version, wasmHash: c.wasm_hash, pool: c.pool, poolType: c.pool_type });
    }
    this.registered = new RegisteredPools(this.store, this.config.networkId, positionFromString(s.registrations_read_to), s.registered_unwatched);
  }

  private snapshot(indexerRevision: number, to: number, openListings: OpenListing[]): IngestionSnapshot {
    return IngestionSnapshotTaken.payload({
      network_id: this.config.networkId,
      indexer_revision: indexerRevision,
      next_ledger: to + 1,
      checkpoint_ledger: to,
      watched: this.watched().map((c) => ({
        contract_id: c.contractId,
        kind: c.kind,
        version: c.version,
        wasm_hash: c.wasmHash ?? null,
        pool: c.pool ?? null,
        pool_type: c.poolType ?? null,
      })),
      open_listings: openListings,
      registered_unwatched: [...this.rejectedRegistered],
      registrations_read_to: positionToString(this.registered.position()),
    });
  }

  private async poolTypeOf(pool: string): Promise<PoolType | null> {
    const stream = poolStreamId(this.config.networkId, pool);
    for (let fromRevision = 0; ; fromRevision += 500) {
      const page = await this.store.readStream(stream, { fromRevision, maxCount: 500 });
      for (const e of page) if (isEventOf(e, [PoolInitialized.type])) return e.data.pool_type;
      if (page.length < 500) return null;
    }
  }

  /** Newly registered pools (PoolRegistered) confirmed by wasm hash and watched from now on. */
  private async watchRegistered(from: number): Promise<Discovery[]> {
    const out: Discovery[] = [];
    const fresh = [...new Set(await this.registered.next())].filter((id) => !this.watch.has(id) && !this.rejected.has(id));
    const confirmed = await confirmInBatches(fresh, (batch) => this.call((o) => confirmRegistered(this.rpc, this.registry, batch, o)));
    for (const contractId of fresh) {
      const identity = confirmed.get(contractId) ?? null;
      if (!identity) {
        this.rejected.add(contractId);
        this.rejectedRegistered.add(contractId);
        this.logger.warn('registered pool is not a known Dob contract (unknown wasm hash: configure DOB_WASM_HASHES); not watched', {
          networkId: this.config.networkId,
          contractId,
        });
        continue;
      }
      this.watch.add(identity);
      out.push({ identity, source: 'registry', ledger: from });
      this.logger.info('registered pool watched', { networkId: this.config.networkId, contractId, kind: identity.kind, version: identity.version });
    }
    return out;
  }

  /**
   * A pool registered after ingestion passed its history: its earlier events (and its token transfers, and a V2
   * pool's participation token) are fetched from the start ledger (or the RPC's oldest) up to the current window,
   * in window-sized ranges, and committed with this window.
   */
  private async catchUp(fresh: readonly ContractIdentity[], discovered: Discovery[], from: number, oldest: number): Promise<RawChainEvent[]> {
    const start = Math.max(this.config.startLedger, oldest);
    const out: RawChainEvent[] = [];
    const parties = fresh.filter((c) => c.kind === 'splitter' || c.kind === 'crowdfunding').map((c) => c.contractId);
    for (let lo = start; lo < from; lo += this.cfg.windowLedgers) {
      const hi = Math.min(lo + this.cfg.windowLedgers - 1, from - 1);
      const { events: raw } = await this.fetchWatched(
        fresh.map((c) => c.contractId),
        parties,
        lo,
        hi,
      );
      out.push(...raw, ...(await this.followParticipationTokens(raw, discovered, lo, hi)));
    }
    return out;
  }

  private async discover(from: number, to: number): Promise<Discovery[]> {
    const out: Discovery[] = [];
    const events = (await this.fetchRange(discoveryFilters(), from, to)).events.sort(compareEventIds);
    // A contract's first init / cf_init in the window makes it a candidate; all of them are confirmed in batches, then
    // taken in chain order.
    const candidates = new Map<string, DiscoveryCandidate & { ledger: number }>();
    for (const e of events) {
      if (candidates.has(e.contractId) || this.watch.has(e.contractId) || this.rejected.has(e.contractId)) continue;
      const first = e.topic[0];
      const symbol = first?.type === 'scvSymbol' ? first.sym.toString() : '';
      if (symbol === 'init' || symbol === 'cf_init') candidates.set(e.contractId, { contractId: e.contractId, symbol, ledger: e.ledger });
    }
    const confirmed = await confirmInBatches([...candidates.values()], (batch) => this.call((o) => confirmCandidates(this.rpc, this.registry, batch, o)));
    for (const { contractId, symbol, ledger } of candidates.values()) {
      const identity = confirmed.get(contractId) ?? null;
      if (!identity) {
        this.rejected.add(contractId);
        continue;
      }
      this.watch.add(identity);
      out.push({ identity, source: symbol, ledger });
      this.logger.info('contract discovered', { networkId: this.config.networkId, contractId, kind: identity.kind, version: identity.version });
    }
    return out;
  }

  /**
   * A V2 pool's `init` names its participation token; the PT's events (mints happen in the same transaction,
   * before the init event) are fetched for the same window so no share movement is missed.
   */
  private async followParticipationTokens(raw: readonly RawChainEvent[], discovered: Discovery[], from: number, to: number): Promise<RawChainEvent[]> {
    const fresh: ContractIdentity[] = [];
    for (const e of raw) {
      const id = this.watch.get(e.contractId);
      if (id?.kind !== 'splitter' || id.version !== '2') continue;
      const first = e.topic[0];
      if (first?.type !== 'scvSymbol' || first.sym.toString() !== 'init') continue;
      const r = decodeChainEvent(e, { networkId: this.config.networkId, identity: id, identityOf: (c) => this.watch.get(c) });
      const init = r.events[0]?.event;
      if (!init || !isEventOf(init, [PoolInitialized.type])) continue;
      const data = init.data;
      if (!data.participation_token) continue;
      const existing = this.watch.get(data.participation_token);
      const pt: ContractIdentity = {
        contractId: data.participation_token,
        kind: 'participation_token',
        version: existing?.version ?? 'unknown',
        wasmHash: existing?.wasmHash ?? null,
        pool: e.contractId,
        poolType: data.pool_type ?? null,
      };
      this.watch.add(pt);
      if (!existing) {
        fresh.push(pt);
        discovered.push({ identity: pt, source: 'participation_token', ledger: e.ledger });
      }
    }
    return fresh.length
      ? (
          await this.fetchWatched(
            fresh.map((c) => c.contractId),
            [],
            from,
            to,
          )
        ).events
      : [];
  }

  /** Starts fetching the window after this one; its result is used by the next step if that step starts there. */
  private prefetchWindow(from: number, latest: number): void {
    if (from > latest || this.stopped) return;
    const to = Math.min(from + this.cfg.windowLedgers - 1, latest);
    const result = this.fetchWatched(this.watch.ids(), this.watch.parties(), from, to, this.cfg.maxEventsPerAppend)
      .then((f) => ({ ...f, window: this.window(f.events, from, f.to) }))
      .catch(() => null);
    this.prefetch = { from, watchVersion: this.watch.version, result };
  }

  private async fetchWatched(contractIds: readonly string[], parties: readonly string[], from: number, to: number, budget?: number): Promise<Fetched> {
    const filters = [...contractFilters(contractIds), ...partyTransferFilters(parties)];
    return filters.length ? this.fetchRange(filters, from, to, budget) : { events: [], to };
  }

  /**
   * All events matching filters in [from, to], paging with the cursor (endLedger is exclusive per stellar-rpc).
   * With a budget, a request that has returned that many events and has more stops paging: the range then ends
   * before the ledger of its last event (that ledger may go on in the next page), the requests after it ask only
   * for the shorter range, and events past it are dropped. A window is cut to about `budget` events anyway
   * (maxEventsPerAppend), so reading the rest of a long range would be parsed and thrown away.
   */
  private async fetchRange(filters: readonly RpcEventFilter[], from: number, to: number, budget = Infinity): Promise<Fetched> {
    const out: RawChainEvent[] = [];
    for (const request of toRequests(filters)) {
      const end = to;
      const mine: RawChainEvent[] = [];
      let page = await this.call((o) => this.rpc.getEvents({ startLedger: from, endLedger: end + 1, filters: request, limit: this.cfg.pageLimit }, o));
      for (;;) {
        const inRange = page.events.filter((e) => e.ledger <= end);
        mine.push(...inRange);
        const exhausted = page.events.length < this.cfg.pageLimit || inRange.length < page.events.length;
        if (exhausted || !page.cursor) break;
        // Once a whole ledger or more is in (the last one may go on in the next page), the range can end there.
        const last = mine[mine.length - 1].ledger;
        const covered = mine.length >= budget && mine[0].ledger < last ? last - 1 : -1;
        if (covered >= from) {
          to = Math.min(to, covered);
          break;
        }
        const cursor = page.cursor;
        page = await this.call((o) => this.rpc.getEvents({ cursor, filters: request, limit: this.cfg.pageLimit }, o));
      }
      out.push(...mine);
    }
    return { events: out.filter((e) => e.ledger <= to), to };
  }

  /** Deduplicates by RPC id, orders, cuts at a ledger boundary past maxEventsPerAppend, decodes. */
  private window(raw: readonly RawChainEvent[], from: number, to: number): Window {
    const byId = new Map<string, RawChainEvent>();
    for (const e of raw) if (e.inSuccessfulContractCall !== false && e.ledger <= to) byId.set(e.id, e);
    let events = [...byId.values()].sort(compareEventIds);
    if (events.length > this.cfg.maxEventsPerAppend) {
      // Cut at a ledger boundary so a ledger is never half-committed.
      const cut = events[this.cfg.maxEventsPerAppend].ledger - 1;
      if (cut >= from) {
        to = cut;
        events = events.filter((e) => e.ledger <= to);
      }
    }
    const alarms: string[] = [];
    return { to, events, decoded: this.decode(events, alarms), alarms };
  }

  private decode(events: readonly RawChainEvent[], alarms: string[]): { decoded: DecodedDomainEvent[]; undecoded: number } {
    const decoded: DecodedDomainEvent[] = [];
    let undecoded = 0;
    for (const e of events) {
      const identity = this.watch.get(e.contractId) ?? { contractId: e.contractId, kind: 'sac' as const, version: 'cap67' };
      const r = decodeChainEvent(e, { networkId: this.config.networkId, identity, identityOf: (c) => this.watch.get(c) }, (info) =>
        alarms.push(`undecoded ${info.event.id} from ${info.identity.kind} ${info.event.contractId}: ${info.reason}`),
      );
      if (r.undecodedReason) undecoded += 1;
      decoded.push(...r.events);
    }
    return { decoded, undecoded };
  }

  private async commit(
    from: number,
    to: number,
    latest: number,
    chainEvents: number,
    { decoded, undecoded }: { decoded: DecodedDomainEvent[]; undecoded: number },
    discovered: Discovery[],
    openListings: () => OpenListing[],
  ): Promise<void> {
    const net = this.config.networkId;
    const checkpointDue = to - this.lastCheckpointLedger >= this.cfg.checkpointEveryLedgers;
    if (decoded.length === 0 && discovered.length === 0 && !checkpointDue && this.lastCheckpointLedger > 0) return;
    const byStream = new Map<string, NewEvent[]>();
    for (const d of decoded) {
      const list = byStream.get(d.streamId) ?? [];
      list.push(d.event);
      byStream.set(d.streamId, list);
    }
    const indexerEvents: NewEvent[] = discovered.map(({ identity, source, ledger }) => ({
      id: derivedEventId(net, 'discovered', identity.contractId),
      type: ContractDiscovered.type,
      version: 1,
      data: ContractDiscovered.payload({
        network_id: net,
        contract_id: identity.contractId,
        kind: identity.kind,
        version: identity.version,
        wasm_hash: identity.wasmHash ?? null,
        pool: identity.pool ?? null,
        source,
        first_seen_ledger: ledger,
      }),
    }));
    indexerEvents.push({
      id: derivedEventId(net, 'cursor', from, to, this.instanceId),
      type: IngestionCursorAdvanced.type,
      version: 1,
      data: IngestionCursorAdvanced.payload({
        network_id: net,
        from_ledger: from,
        to_ledger: to,
        next_ledger: to + 1,
        latest_ledger: latest,
        latest_ledger_closed_at: null,
        chain_events: chainEvents,
        domain_events: decoded.length,
        undecoded,
      }),
    });
    const appends: StreamAppend[] = [...byStream].map(([streamId, events]) => ({ streamId, events, expectedVersion: 'any' as const }));
    appends.push({
      streamId: indexerStreamId(net),
      events: indexerEvents,
      expectedVersion: this.indexerRevision < 0 ? 'no_stream' : this.indexerRevision,
    });
    const indexerAppend = appends.length - 1;
    // The snapshot goes last, so its $all position follows every event of the window (ListingBook resumes there).
    const snapshotDue = this.windowsSinceSnapshot + 1 >= this.cfg.snapshotEveryWindows;
    if (snapshotDue) {
      const cursorRevision = this.indexerRevision + indexerEvents.length;
      appends.push({
        streamId: ingestionSnapshotStreamId(net),
        events: [
          {
            id: derivedEventId(net, 'snapshot', from, to, this.instanceId),
            type: IngestionSnapshotTaken.type,
            version: 1,
            data: this.snapshot(cursorRevision, to, openListings()),
          },
        ],
        expectedVersion: 'any',
      });
    }
    const results = await this.store.appendMany(appends);
    this.indexerRevision = results[indexerAppend].nextExpectedVersion;
    this.windowsSinceSnapshot = snapshotDue ? 0 : this.windowsSinceSnapshot + 1;
    this.lastCheckpointLedger = to;
    this.update({
      undecodedTotal: this.current.undecodedTotal + undecoded,
      eventsIngested: this.current.eventsIngested + decoded.length,
      watchedContracts: this.watch.size,
    });
  }

  /** One RPC call with a deadline (the request is aborted, not just raced, when it passes) and retries. */
  private call<T>(fn: (options: RpcCallOptions) => Promise<T>): Promise<T> {
    return withBackoff(() => this.reportingSilence(withTimeout((signal) => fn({ signal }), this.cfg.rpcTimeoutMs, this.stopping.signal)), this.backoff);
  }

  /**
   * Degraded once a call has waited rpcSlowMs, as after a failed call: an RPC that accepts connections and answers
   * nothing would otherwise leave the status "live" until the call's deadline. The next window's lag update makes
   * it live again.
   */
  private async reportingSilence<T>(call: Promise<T>): Promise<T> {
    const timer = setTimeout(() => {
      if (this.current.state === 'halted') return;
      const why = `the RPC has not answered for ${this.cfg.rpcSlowMs} ms (a call waits up to ${this.cfg.rpcTimeoutMs} ms)`;
      this.logger.warn('rpc call unanswered', { networkId: this.config.networkId, error: why });
      this.update({ state: 'degraded', lastError: why });
    }, this.cfg.rpcSlowMs);
    try {
      return await call;
    } finally {
      clearTimeout(timer);
    }
  }

  private halt(kind: IngestionAlarm['kind'], reason: string): StepOutcome {
    this.update({ state: 'halted', haltReason: reason, haltKind: kind });
    this.logger.error(`INGESTION HALTED: ${reason}`, { networkId: this.config.networkId, kind });
    this.alarm(kind, reason);
    return 'halted';
  }

  private alarm(kind: IngestionAlarm['kind'], message: string): void {
    this.config.onAlarm?.({ networkId: this.config.networkId, kind, message });
  }

  private updateLag(latest: number): void {
    const behind = Math.max(0, latest - (this.nextLedger - 1));
    this.update({
      state: behind === 0 ? 'live' : 'backfilling',
      nextLedger: this.nextLedger,
      latestLedger: latest,
      ledgersBehind: behind,
      secondsBehind: behind * SECONDS_PER_LEDGER,
      lastError: null,
    });
  }

  private update(patch: Partial<IngestionStatus>): void {
    this.current = { ...this.current, ...patch, updatedAt: (this.config.clock ?? (() => new Date()))().toISOString() };
  }
}

/** RPC event ids are "<TOID 19 digits>-<index 10 digits>": zero-padded, so string order = chain order. */
export function compareEventIds(a: { id: string }, b: { id: string }): number {
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}
