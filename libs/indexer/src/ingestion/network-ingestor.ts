import { randomUUID } from 'node:crypto';
import {
  ContractDiscovered,
  IngestionCursorAdvanced,
  PoolInitialized,
  derivedEventId,
  indexerStreamId,
  isEventOf,
  poolStreamId,
  type PoolType,
} from '@dob/domain';
import { WrongExpectedVersionError, type EventStore, type NewEvent, type StreamAppend } from '@dob/event-store';
import type { RawChainEvent } from '../decoding/chain-event';
import { KNOWN_DOB_WASMS, WasmRegistry, type ContractIdentity } from '../decoding/contract-identity';
import { decodeChainEvent, type DecodedDomainEvent } from '../decoding/decode-chain-event';
import { confirmCandidate, confirmRegistered } from '../discovery/contract-discovery';
import { isRetentionError, type ChainRpc, type RpcCallOptions, type RpcEventFilter } from '../rpc/chain-rpc.port';
import { DEFAULT_BACKOFF, sleepUnlessStopped, withBackoff, withTimeout, type BackoffOptions } from './backoff';
import { contractFilters, discoveryFilters, partyTransferFilters, toRequests } from './filter-plan';
import { silentLogger, type IndexerLogger, type IngestionAlarm, type IngestionStatus } from './ingestion-status';
import { attachCapTables } from './cap-table-enrichment';
import { ListingBook } from './listing-book';
import { RegisteredPools } from './registered-pools';
import { WatchSet, type DiscoverySource } from './watch-set';

type Discovery = { identity: ContractIdentity; source: DiscoverySource; ledger: number };

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
  readonly pollIntervalMs?: number;
  readonly rpcTimeoutMs?: number;
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
  private readonly cfg: Required<Pick<NetworkIngestorConfig, 'pageLimit' | 'windowLedgers' | 'maxEventsPerAppend' | 'checkpointEveryLedgers' | 'pollIntervalMs' | 'rpcTimeoutMs'>>;
  private readonly backoff: BackoffOptions;
  private readonly registry: WasmRegistry;
  private readonly logger: IndexerLogger;
  private readonly watch = new WatchSet();
  /** Candidates whose wasm hash is not Dob: never asked again in this process. */
  private readonly rejected = new Set<string>();
  private readonly registered: RegisteredPools;
  private listings = new ListingBook();
  private loaded = false;
  private indexerRevision = -1;
  private nextLedger = 0;
  private lastCheckpointLedger = 0;
  private stopped = false;
  private readonly stopping = new AbortController();
  private current: IngestionStatus;
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
      pollIntervalMs: config.pollIntervalMs ?? 2_000,
      rpcTimeoutMs: config.rpcTimeoutMs ?? 30_000,
    };
    this.backoff = {
      ...DEFAULT_BACKOFF,
      sleep: config.sleep ?? ((ms) => sleepUnlessStopped(ms, this.stopping.signal)),
      ...config.backoff,
      // Retention errors cannot heal by retrying; a stopping indexer does not retry either.
      isFatal: (err) => isRetentionError(err) || this.stopping.signal.aborted,
      onRetry: ({ attempt, delayMs, error }) =>
        this.logger.warn('rpc call failed, retrying', { networkId: config.networkId, attempt, delayMs, error: String(error) }),
    };
    this.registry = config.wasmRegistry ?? new WasmRegistry(KNOWN_DOB_WASMS);
    this.registered = new RegisteredPools(store, config.networkId);
    this.logger = config.logger ?? silentLogger;
    for (const c of config.contracts ?? []) this.watch.add(c);
    this.current = {
      networkId: config.networkId,
      state: 'starting',
      haltReason: null,
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
    let to = Math.min(from + this.cfg.windowLedgers - 1, health.latestLedger);
    try {
      const discovered = this.config.discovery === false ? [] : await this.discover(from, to);
      const registered = this.config.registeredPools === false ? [] : await this.watchRegistered(from);
      discovered.push(...registered);
      let raw = await this.fetchWatched(this.watch.ids(), this.watch.parties(), from, to);
      raw = raw.concat(await this.followParticipationTokens(raw, discovered, from, to));
      if (registered.length) raw = raw.concat(await this.catchUp(registered.map((r) => r.identity), discovered, from, health.oldestLedger));
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
      const decoded = this.decode(events);
      await attachCapTables(decoded.decoded, (txHash) => this.call((o) => this.rpc.getInvocation(txHash, o)));
      const keepListings = this.listings.stage(decoded.decoded);
      await this.commit(from, to, health.latestLedger, events.length, decoded, discovered);
      keepListings();
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
      throw err;
    }
    this.nextLedger = to + 1;
    this.updateLag(health.latestLedger);
    return 'advanced';
  }

  private async load(): Promise<void> {
    if (this.loaded) return;
    const stream = await this.store.readStream(indexerStreamId(this.config.networkId));
    this.nextLedger = this.config.startLedger;
    for (const e of stream) {
      this.indexerRevision = e.revision;
      if (isEventOf(e, [IngestionCursorAdvanced.type])) {
        this.nextLedger = e.data.next_ledger;
        this.lastCheckpointLedger = e.data.to_ledger;
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
    this.listings = await ListingBook.load(this.store, this.config.networkId);
    this.loaded = true;
    this.update({ nextLedger: this.nextLedger, watchedContracts: this.watch.size });
    this.logger.info('ingestion resumed', { networkId: this.config.networkId, nextLedger: this.nextLedger, watched: this.watch.size });
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
    for (const contractId of await this.registered.next()) {
      if (this.watch.has(contractId) || this.rejected.has(contractId)) continue;
      const identity = await this.call((o) => confirmRegistered(this.rpc, this.registry, contractId, o));
      if (!identity) {
        this.rejected.add(contractId);
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
      const raw = await this.fetchWatched(fresh.map((c) => c.contractId), parties, lo, hi);
      out.push(...raw, ...(await this.followParticipationTokens(raw, discovered, lo, hi)));
    }
    return out;
  }

  private async discover(from: number, to: number): Promise<Discovery[]> {
    const out: Discovery[] = [];
    const events = (await this.fetchRange(discoveryFilters(), from, to)).sort(compareEventIds);
    for (const e of events) {
      if (this.watch.has(e.contractId) || this.rejected.has(e.contractId)) continue;
      const first = e.topic[0];
      const symbol = first?.type === 'scvSymbol' ? first.sym.toString() : '';
      if (symbol !== 'init' && symbol !== 'cf_init') continue;
      const identity = await this.call((o) => confirmCandidate(this.rpc, this.registry, e.contractId, symbol, o));
      if (!identity) {
        this.rejected.add(e.contractId);
        continue;
      }
      this.watch.add(identity);
      out.push({ identity, source: symbol, ledger: e.ledger });
      this.logger.info('contract discovered', { networkId: this.config.networkId, contractId: e.contractId, kind: identity.kind, version: identity.version });
    }
    return out;
  }

  /**
   * A V2 pool's `init` names its participation token; the PT's events (mints happen in the same transaction,
   * before the init event) are fetched for the same window so no share movement is missed.
   */
  private async followParticipationTokens(
    raw: readonly RawChainEvent[],
    discovered: Discovery[],
    from: number,
    to: number,
  ): Promise<RawChainEvent[]> {
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
    return fresh.length ? this.fetchWatched(fresh.map((c) => c.contractId), [], from, to) : [];
  }

  private fetchWatched(contractIds: readonly string[], parties: readonly string[], from: number, to: number): Promise<RawChainEvent[]> {
    const filters = [...contractFilters(contractIds), ...partyTransferFilters(parties)];
    return filters.length ? this.fetchRange(filters, from, to) : Promise.resolve([]);
  }

  /** All events matching filters in [from, to], paging with the cursor (endLedger is exclusive per stellar-rpc). */
  private async fetchRange(filters: readonly RpcEventFilter[], from: number, to: number): Promise<RawChainEvent[]> {
    const out: RawChainEvent[] = [];
    for (const request of toRequests(filters)) {
      let page = await this.call((o) => this.rpc.getEvents({ startLedger: from, endLedger: to + 1, filters: request, limit: this.cfg.pageLimit }, o));
      for (;;) {
        const inRange = page.events.filter((e) => e.ledger <= to);
        out.push(...inRange);
        const exhausted = page.events.length < this.cfg.pageLimit || inRange.length < page.events.length;
        if (exhausted || !page.cursor) break;
        const cursor = page.cursor;
        page = await this.call((o) => this.rpc.getEvents({ cursor, filters: request, limit: this.cfg.pageLimit }, o));
      }
    }
    return out;
  }

  private decode(events: readonly RawChainEvent[]): { decoded: DecodedDomainEvent[]; undecoded: number } {
    const decoded: DecodedDomainEvent[] = [];
    let undecoded = 0;
    for (const e of events) {
      const identity = this.watch.get(e.contractId) ?? { contractId: e.contractId, kind: 'sac' as const, version: 'cap67' };
      const r = decodeChainEvent(e, { networkId: this.config.networkId, identity, identityOf: (c) => this.watch.get(c) }, (info) =>
        this.alarm('undecoded_event', `undecoded ${info.event.id} from ${info.identity.kind} ${info.event.contractId}: ${info.reason}`),
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
    const results = await this.store.appendMany(appends);
    this.indexerRevision = results[results.length - 1].nextExpectedVersion;
    this.lastCheckpointLedger = to;
    this.update({ undecodedTotal: this.current.undecodedTotal + undecoded, eventsIngested: this.current.eventsIngested + decoded.length, watchedContracts: this.watch.size });
  }

  /** One RPC call with a deadline (the request is aborted, not just raced, when it passes) and retries. */
  private call<T>(fn: (options: RpcCallOptions) => Promise<T>): Promise<T> {
    return withBackoff(() => withTimeout((signal) => fn({ signal }), this.cfg.rpcTimeoutMs, this.stopping.signal), this.backoff);
  }

  private halt(kind: IngestionAlarm['kind'], reason: string): StepOutcome {
    this.update({ state: 'halted', haltReason: reason });
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
