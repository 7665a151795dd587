import { START, positionToString, type EventStore, type GlobalPosition } from '@dob/event-store';
import type { LeaseClaim, LeaseKeeper } from '@dob/leases';
import { sameSlot, slotKey, type ProjectionDefinition, type ProjectionHeader, type ProjectionSlot } from '../projection';
import { CheckpointConflictError, type ProjectionFault, type ReadModelStore } from '../read-model-store.port';
import { matchingEvents, slotReport, type ProjectionReport } from './projection-report';
import { SharedBacklog } from './shared-backlog';
import { SlotWorker, type WorkerEnd } from './slot-worker';

export interface ProjectionRunnerOptions {
  /** Events per read-model transaction (a definition's own batchSize wins). Default 500. */
  readonly batchSize?: number;
  /**
   * Events per batch while a slot works through a backlog (rebuilds, catch-up after a stop): larger pages, one
   * batch each (SlotWorkerOptions.catchUpBatchSize). Default: batchSize. DEFAULT_CATCH_UP_BATCH_SIZE suits apps.
   */
  readonly catchUpBatchSize?: number;
  /** Passed to subscribeToAll. */
  readonly pollIntervalMs?: number;
  /** How often a started runner re-reads active slots (switches/resets done by another process). Default 1000. */
  readonly superviseIntervalMs?: number;
  readonly log?: (line: string) => void;
  /**
   * Several processes on one database: each projection runs only in the process holding its lease
   * (`projection:<name>`, or `projection:<name>@<store's leaseScope>`), and every batch is fenced with the lease's token. Unset (one process, e.g. npm start
   * on PGlite): every projection runs here.
   */
  readonly leases?: LeaseKeeper;
  /**
   * Projections whose serving slots catch up over one shared read of their backlog (SharedBacklog) when the runner
   * starts with them at one checkpoint — a projector stopped while the history grew — as rebuildAll's groups build
   * over one read (READ_MODEL_REBUILD_GROUPS).
   */
  readonly catchUpGroups?: readonly (readonly string[])[];
}

/** A SharedBacklog member: the event store its worker reads through, and how it leaves the group. */
type BacklogMember = ReturnType<SharedBacklog['join']>;

/**
 * Catch-up page for the apps: large enough that a hot document (a pool, a wallet's totals) is written once per
 * thousands of events, small enough that a page's documents stay well within memory and one transaction.
 */
export const DEFAULT_CATCH_UP_BATCH_SIZE = 5000;

/**
 * The lease that owns one projection of one store across processes. Scoped per store (issue 31): a projector on
 * MongoDB beside one on SQL used to contend for the same `projection:<name>` and one of them stood by for good.
 */
export const projectionLeaseName = (name: string, scope?: string) => (scope ? `projection:${name}@${scope}` : `projection:${name}`);

const noop = (): void => undefined;

/** `names` in order, a group's members in `names` taken together where the first of them comes. */
function rebuildUnits(names: readonly string[], groups: readonly (readonly string[])[]): string[][] {
  const units: string[][] = [];
  const placed = new Set<string>();
  for (const name of names) {
    if (placed.has(name)) continue;
    const group = groups.find((g) => g.includes(name));
    const unit = group ? names.filter((n) => group.includes(n) && !placed.has(n)) : [name];
    for (const n of unit) placed.add(n);
    units.push(unit);
  }
  return units;
}

/** Conflicts a build survives (each restarts it from its checkpoint) before the rebuild fails with the last one. */
const BUILD_ATTEMPTS = 3;

export interface RebuildProgress {
  readonly slot: ProjectionSlot;
  /** Events applied to the building slot so far (including before a resume). */
  readonly applied: number;
  /** Matching events in the store when the rebuild started (grows if live events outpace it). */
  readonly total: number;
  readonly position: GlobalPosition;
}

export interface RebuildOptions {
  readonly onProgress?: (progress: RebuildProgress) => void;
  /** The build reached the head and the switch begins (again after a conflict sent it back to building). */
  readonly onSwitching?: () => void;
  /** The store the build reads its backlog through (a SharedBacklog member's); default the runner's. */
  readonly history?: EventStore;
}

export interface RebuildAllOptions {
  /**
   * Projections built side by side over one shared read of the history (SharedBacklog): each group's members that
   * are rebuilt here start together, where the first of them comes in `names`. For projections whose types overlap
   * much and whose slot caches together fit the process's memory (READ_MODEL_REBUILD_GROUPS).
   */
  readonly groups?: readonly (readonly string[])[];
  readonly onProgress?: (name: string, progress: RebuildProgress) => void;
  /** A projection switched (the others may still be building). */
  readonly onSwitched?: (name: string, result: RebuildResult) => void;
}

export interface RebuildResult {
  readonly from: ProjectionSlot | null;
  readonly to: ProjectionSlot;
  readonly eventsApplied: number;
}

export class ProjectionFaultedError extends Error {
  override readonly name = 'ProjectionFaultedError';
  constructor(
    readonly slot: ProjectionSlot,
    readonly fault: ProjectionFault,
  ) {
    super(`projection ${slotKey(slot)} faulted at event ${fault.eventId ?? '?'}: ${fault.error}`);
  }
}

type Mode = 'idle' | 'following' | 'faulted' | 'upgrading' | 'superseded' | 'standby';

interface Entry<D extends ProjectionHeader> {
  readonly definition: D;
  mode: Mode;
  worker?: SlotWorker<D>;
  /** The followed slot has read everything committed at least once (and its status says `live`). */
  ready: boolean;
  building?: Promise<RebuildResult>;
  /** Serialises reconcile/reset/retry of one projection. */
  queue: Promise<unknown>;
  /** With leases: this projection's lease, held by this process or not. */
  claim?: LeaseClaim;
}

/**
 * Runs projections, each from its own checkpoint, each in its own loop (one faulting never stops another), and
 * does zero-downtime rebuilds: the next build fills its own tables beside the serving ones, then an atomic switch
 * re-points the stable views and the old tables are dropped.
 */
export class ProjectionRunner<D extends ProjectionHeader = ProjectionDefinition> {
  private readonly entries = new Map<string, Entry<D>>();
  private readonly batchSize: number;
  private started = false;
  private supervisor?: NodeJS.Timeout;
  private initialised?: Promise<void>;

  constructor(
    private readonly store: EventStore,
    private readonly readModels: ReadModelStore<D>,
    definitions: readonly D[],
    private readonly options: ProjectionRunnerOptions = {},
  ) {
    this.batchSize = options.batchSize ?? 500;
    for (const definition of definitions) {
      if (this.entries.has(definition.name)) throw new Error(`projection ${definition.name} registered twice`);
      this.entries.set(definition.name, { definition, mode: 'idle', ready: false, queue: Promise.resolve() });
    }
  }

  get names(): string[] {
    return [...this.entries.keys()];
  }

  async start(): Promise<void> {
    await this.init();
    this.started = true;
    this.claimLeases();
    const shared = await this.sharedCatchUps();
    await Promise.all(this.names.map((name) => this.reconcile(name, shared.get(name))));
    const every = this.options.superviseIntervalMs ?? 1000;
    this.supervisor = setInterval(() => {
      for (const name of this.names) void this.reconcile(name).catch((e) => this.log(`${name}: ${String(e)}`));
    }, every);
  }

  async stop(): Promise<void> {
    this.started = false;
    if (this.supervisor) clearInterval(this.supervisor);
    await Promise.all(
      [...this.entries.values()].map(async (entry) => {
        await entry.worker?.stop();
        await entry.building?.catch(() => undefined);
      }),
    );
  }

  /** Readiness: every projection this process serves has read all committed events at least once (faulted ones
   *  are reported by status(), not here, so one bad event does not take every instance out of rotation). A
   *  projection standing by counts only while another process owns it: once this process holds its lease, the
   *  reconcile that starts its worker is still pending (onAcquired does not await it), and its model here is not
   *  caught up until that worker is. */
  isCaughtUp(): boolean {
    if (!this.started) return false;
    return [...this.entries.values()].every(
      (e) => e.mode === 'faulted' || e.mode === 'superseded' || (e.mode === 'standby' && !e.claim?.held()) || (e.mode === 'following' && e.ready),
    );
  }

  async waitUntilCaughtUp(timeoutMs = 60_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!this.isCaughtUp()) {
      if (Date.now() > deadline) throw new Error(`projections not caught up after ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 10));
    }
  }

  async status(): Promise<ProjectionReport[]> {
    await this.init();
    const [head, stats, states] = await Promise.all([this.store.headPosition(), this.store.stats(), this.readModels.states()]);
    return [...this.entries.values()].map((entry) => {
      const def = entry.definition;
      const matching = matchingEvents(def, stats);
      const mine = states.filter((s) => s.slot.name === def.name);
      const active = mine.find((s) => s.active);
      const building = mine.find((s) => !s.active && s.status === 'rebuilding');
      return {
        name: def.name,
        definitionVersion: def.version,
        active: active ? slotReport(active, head, matching) : null,
        building: building ? slotReport(building, head, matching) : null,
        caughtUp: entry.mode === 'following' && entry.ready,
        ...(entry.claim ? { role: entry.claim.held() ? ('owner' as const) : ('standby' as const) } : {}),
      };
    });
  }

  /**
   * Blue/green rebuild: builds the definition's version into a fresh slot (the next generation, or resumes an
   * unfinished build) from START while the active slot keeps serving, switches atomically once it has caught up,
   * then drops the old slot. A started runner then follows the new slot; otherwise the build worker stops.
   */
  rebuild(name: string, options: RebuildOptions = {}): Promise<RebuildResult> {
    const entry = this.entry(name);
    if (!entry.building) {
      entry.building = this.runRebuild(entry, options).finally(() => {
        entry.building = undefined;
      });
    }
    return entry.building;
  }

  /**
   * Rebuilds several projections one after another, except that each one's switch overlaps the next one's build: a
   * switch is mostly the database building the serving indexes (docs/projections.md), which left the rebuilding
   * process idle — 5.9 of 77 s over a 1M history. One build at a time still, so one slot cache at a time (the
   * switching one's is released when its switch ends) — except the members of one of `options.groups`, built side by
   * side over one read of the history. A build that fails stops the sequence; whatever was started is let finish,
   * then the first failure is thrown (the projections switched before it stay switched).
   */
  async rebuildAll(names: readonly string[], options: RebuildAllOptions = {}): Promise<RebuildResult[]> {
    for (const name of names) this.entry(name); // unknown names fail before anything starts
    const results = new Map<string, Promise<RebuildResult>>();
    for (const unit of rebuildUnits(names, options.groups ?? [])) {
      let failed = false;
      const backlog = this.sharedBacklog(unit);
      const switching = unit.map((name) => {
        const member = backlog?.join(this.entry(name).definition.eventTypes);
        let switched!: () => void;
        const built = new Promise<void>((resolve) => (switched = resolve));
        const result = this.rebuild(name, {
          onProgress: (p) => options.onProgress?.(name, p),
          onSwitching: () => {
            member?.leave();
            switched();
          },
          ...(member ? { history: member.store } : {}),
        });
        result.then(
          (r) => options.onSwitched?.(name, r),
          () => (failed = true),
        );
        void result.finally(() => member?.leave()).catch(noop);
        results.set(name, result);
        // A group's switches are awaited before the next unit builds: its members' slot caches are released only
        // when their switches end, and the next builds beside them pushed the heap into GC under the ops cap.
        return backlog ? result.then(noop, noop) : Promise.race([built, result.then(noop, noop)]);
      });
      await Promise.all(switching);
      if (failed) break; // a build that failed stops the sequence; a failed switch does not stop the build after it
    }
    const settled = await Promise.allSettled(results.values());
    const failure = settled.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failure) throw failure.reason;
    return settled.map((r) => (r as PromiseFulfilledResult<RebuildResult>).value);
  }

  /** One read of the history for a unit of several builds, each from START (none of them already in progress). */
  private sharedBacklog(unit: readonly string[]): SharedBacklog | undefined {
    if (unit.length < 2 || !unit.every((name) => this.readsBacklogInPages(this.entry(name)) && !this.entry(name).building)) return undefined;
    return this.backlogOf(unit, START);
  }

  /**
   * When the runner starts: in each catch-up group, the projections whose active slots (this version, not faulted,
   * no build running) stand at one checkpoint — the largest such set, of two or more — join one SharedBacklog from
   * there. Each member's worker reads its backlog through it (reconcileNow); a member handed no worker leaves.
   */
  private async sharedCatchUps(): Promise<Map<string, BacklogMember>> {
    const members = new Map<string, BacklogMember>();
    const groups = this.options.catchUpGroups ?? [];
    if (groups.length === 0) return members;
    const states = await this.readModels.states();
    for (const group of groups) {
      const atPosition = new Map<string, { position: GlobalPosition; names: string[] }>();
      for (const name of group) {
        const entry = this.entries.get(name);
        const active = states.find((s) => s.active && s.slot.name === name);
        if (!entry || entry.building || !this.readsBacklogInPages(entry)) continue;
        if (!active || active.slot.version !== entry.definition.version || active.status === 'faulted') continue;
        const key = positionToString(active.position);
        const at = atPosition.get(key) ?? { position: active.position, names: [] };
        at.names.push(name);
        atPosition.set(key, at);
      }
      const largest = [...atPosition.values()].reduce<{ position: GlobalPosition; names: string[] } | undefined>(
        (a, b) => (!a || b.names.length > a.names.length ? b : a),
        undefined,
      );
      if (!largest || largest.names.length < 2) continue;
      const backlog = this.backlogOf(largest.names, largest.position);
      for (const name of largest.names) members.set(name, backlog.join(this.entry(name).definition.eventTypes));
    }
    return members;
  }

  /** A worker of this projection reads its backlog in catch-up pages (the only reads a SharedBacklog shares). */
  private readsBacklogInPages(entry: Entry<D>): boolean {
    return (this.options.catchUpBatchSize ?? 0) > (entry.definition.batchSize ?? this.batchSize);
  }

  private backlogOf(names: readonly string[], from: GlobalPosition): SharedBacklog {
    const types = names.map((name) => this.entry(name).definition.eventTypes);
    // A member reading every type makes the shared read unfiltered.
    const union = types.some((t) => t.length === 0) ? undefined : [...new Set(types.flat())];
    return new SharedBacklog(this.store, union, this.options.catchUpBatchSize!, { from });
  }

  /** Empties the active slot and replays it from START (the model is partial meanwhile: rebuild avoids that). */
  reset(name: string): Promise<void> {
    return this.serial(name, async (entry) => {
      await this.init();
      const active = await this.readModels.activeSlot(name);
      if (!active) throw new Error(`projection ${name} has no active slot yet`);
      if (active.version !== entry.definition.version) {
        throw new Error(`projection ${name} serves v${active.version}, this process has v${entry.definition.version}: rebuild instead`);
      }
      await this.stopWorker(entry);
      await this.readModels.resetSlot(entry.definition, active);
      entry.mode = 'idle';
      await this.reconcileNow(entry);
    });
  }

  /** Clears a fault and resumes the active slot from its checkpoint (after fixing the cause, e.g. a deploy). */
  retry(name: string): Promise<void> {
    return this.serial(name, async (entry) => {
      await this.init();
      const active = await this.readModels.activeSlot(name);
      if (!active) throw new Error(`projection ${name} has no active slot yet`);
      await this.readModels.setStatus(active, 'catching_up', null);
      entry.mode = 'idle';
      await this.reconcileNow(entry);
    });
  }

  /** Each projection competes for its lease; only while this process holds it does a worker run here. */
  private claimLeases(): void {
    const keeper = this.options.leases;
    if (!keeper) return;
    for (const entry of this.entries.values()) {
      if (entry.claim) continue;
      const name = entry.definition.name;
      entry.claim = keeper.claim(projectionLeaseName(name, this.readModels.leaseScope), {
        onAcquired: () => void this.reconcile(name).catch((e) => this.log(`${name}: ${String(e)}`)),
        onLost: () =>
          this.serial(name, async (e) => {
            await this.stopWorker(e);
            e.mode = 'standby';
          }),
      });
    }
  }

  private init(): Promise<void> {
    this.initialised ??= this.readModels.init();
    return this.initialised;
  }

  private entry(name: string): Entry<D> {
    const entry = this.entries.get(name);
    if (!entry) throw new Error(`unknown projection ${name}; known: ${this.names.join(', ') || '(none)'}`);
    return entry;
  }

  private serial<T>(name: string, fn: (entry: Entry<D>) => Promise<T>): Promise<T> {
    const entry = this.entry(name);
    const run = entry.queue.then(() => fn(entry));
    entry.queue = run.catch(() => undefined);
    return run;
  }

  /** `member`: a shared catch-up read for the worker this reconcile starts; left at once if it starts none. */
  private reconcile(name: string, member?: BacklogMember): Promise<void> {
    const handed = { toWorker: false };
    const run = this.serial(name, (entry) => this.reconcileNow(entry, member && { member, handed }));
    return member ? run.finally(() => handed.toWorker || member.leave()) : run;
  }

  /** Brings this process in line with the stored state: follow the active slot, upgrade, or stand aside. */
  private async reconcileNow(entry: Entry<D>, shared?: { member: BacklogMember; handed: { toWorker: boolean } }): Promise<void> {
    if (!this.started) return;
    const def = entry.definition;
    if (entry.claim && !entry.claim.held()) {
      // Another process owns it (or nobody yet: the lease keeper will hand it over when it lapses).
      await this.stopWorker(entry);
      entry.mode = 'standby';
      return;
    }
    let active = await this.readModels.activeSlot(def.name);
    if (!active) {
      active = { name: def.name, version: def.version, generation: 0 };
      if (!(await this.readModels.state(active))) await this.readModels.createSlot(def, active, 'catching_up');
      // Nothing served before, so the first build serves at once (there is no older model to keep showing).
      await this.readModels.activate(active);
    }
    if (active.version > def.version) {
      if (entry.mode !== 'superseded') this.log(`${def.name}: v${active.version} is active, this process has v${def.version}; standing aside`);
      await this.stopWorker(entry);
      entry.mode = 'superseded';
      return;
    }
    if (active.version < def.version) {
      // The old version's code is gone: it keeps serving as is while the new version builds beside it.
      await this.stopWorker(entry);
      entry.mode = 'upgrading';
      if (!entry.building) void this.rebuild(def.name).catch((e) => this.log(`${def.name}: upgrade failed: ${String(e)}`));
      return;
    }
    if (entry.building) return; // the rebuild hands its worker over when it switches
    if (entry.worker && sameSlot(entry.worker.slot, active)) return;
    await this.collectGarbage(def, active);
    await this.stopWorker(entry);
    const state = await this.readModels.state(active);
    if (!state) return; // switched away in between; the next reconcile picks the new slot
    if (state.status === 'faulted') {
      entry.mode = 'faulted';
      return;
    }
    // The stored status tells operators what this slot does now: catching_up until the worker reaches the head.
    if (state.status !== 'catching_up') await this.readModels.setStatus(active, 'catching_up');
    let marked = false;
    const worker = this.newWorker(
      active,
      def,
      state.position,
      {
        onCaughtUp: () => {
          shared?.member.leave(); // live from here: its reads go to the store, the group no longer waits for it
          if (marked) return;
          marked = true;
          void this.readModels
            .setStatus(active, 'live')
            .then(() => {
              if (entry.worker === worker) entry.ready = true;
            })
            .catch((e) => this.log(`${def.name}: could not mark live: ${String(e)}`));
        },
      },
      shared?.member.store,
    );
    if (shared) {
      shared.handed.toWorker = true;
      void worker.done.finally(() => shared.member.leave()).catch(noop);
    }
    this.follow(entry, worker, false);
  }

  /** Slots nobody will serve again: old versions and finished or failed builds of this version. */
  private async collectGarbage(def: D, active: ProjectionSlot): Promise<void> {
    for (const s of await this.readModels.states(def.name)) {
      if (s.active || sameSlot(s.slot, active) || s.slot.version > def.version) continue;
      if (s.slot.version === def.version && s.status === 'rebuilding') continue; // maybe another process's build
      this.log(`${def.name}: dropping retired ${slotKey(s.slot)}`);
      await this.readModels.dropSlot(s.slot);
    }
  }

  private newWorker(
    slot: ProjectionSlot,
    def: D,
    from: GlobalPosition,
    hooks: { onCommitted?: (n: number, p: GlobalPosition) => void; onCaughtUp?: () => void } = {},
    history: EventStore = this.store,
  ): SlotWorker<D> {
    const claim = this.entries.get(def.name)?.claim;
    const fence = claim?.fence() ?? undefined;
    // Under a lease the fence is the guarantee: a worker started just after the lease was lost (reconcile awaits
    // between its check of the claim and here) must not run unfenced, so it is not started at all.
    if (claim && !fence) throw new CheckpointConflictError(slot, `lease ${claim.name} lost before the worker started`);
    return new SlotWorker(history, this.readModels, def, slot, from, {
      batchSize: this.batchSize,
      ...(this.options.catchUpBatchSize ? { catchUpBatchSize: this.options.catchUpBatchSize } : {}),
      pollIntervalMs: this.options.pollIntervalMs,
      ...(fence ? { fence } : {}),
      ...hooks,
    });
  }

  private follow(entry: Entry<D>, worker: SlotWorker<D>, ready: boolean): void {
    entry.worker = worker;
    entry.mode = 'following';
    entry.ready = ready;
    void worker.done.then((end) => this.onWorkerEnd(entry, worker, end));
  }

  private onWorkerEnd(entry: Entry<D>, worker: SlotWorker<D>, end: WorkerEnd): void {
    if (entry.worker !== worker) return;
    entry.worker = undefined;
    entry.ready = false;
    if (end.kind === 'stopped') return;
    if (end.kind === 'faulted') {
      entry.mode = 'faulted';
      this.log(`${worker.slot.name}: FAULTED at event ${end.fault.eventId}: ${end.fault.error}`);
      return;
    }
    entry.mode = 'idle';
    // A conflict means another actor moved the checkpoint (switch, reset, second runner): re-read at once.
    // A failure (e.g. the database went away) waits for the supervisor's next round.
    if (end.kind === 'conflict') {
      // Said, because a fenced-out commit (a frozen owner woken after losing its lease) is worth an operator's eye.
      this.log(`${worker.slot.name}: commit refused, re-reading who owns what: ${end.error.message}`);
      void this.reconcile(entry.definition.name).catch((e) => this.log(String(e)));
    } else this.log(`${worker.slot.name}: stopped on error, retrying: ${String(end.error)}`);
  }

  private async stopWorker(entry: Entry<D>): Promise<void> {
    const worker = entry.worker;
    entry.worker = undefined;
    entry.ready = false;
    if (worker) await worker.stop();
  }

  private async runRebuild(entry: Entry<D>, options: RebuildOptions): Promise<RebuildResult> {
    await this.init();
    const def = entry.definition;
    const states = await this.readModels.states(def.name);
    const resumable = states.find((s) => !s.active && s.slot.version === def.version && s.status === 'rebuilding');
    let target: ProjectionSlot;
    if (resumable) {
      target = resumable.slot;
      this.log(`${def.name}: resuming build of ${slotKey(target)}`);
    } else {
      const generations = states.filter((s) => s.slot.version === def.version).map((s) => s.slot.generation);
      target = { name: def.name, version: def.version, generation: generations.length ? Math.max(...generations) + 1 : 0 };
      await this.readModels.createSlot(def, target, 'rebuilding');
    }
    const total = matchingEvents(def, await this.store.stats());
    const { worker, applied, previous } = await this.buildAndSwitch(def, target, total, options);
    this.log(`${def.name}: switched to ${slotKey(target)}${previous ? ` from ${slotKey(previous)}` : ''}`);
    if (this.started) {
      await this.stopWorker(entry);
      this.follow(entry, worker, true); // caught up, and activate() marked it live
    } else {
      await worker.stop();
    }
    if (previous && !sameSlot(previous, target)) await this.readModels.dropSlot(previous);
    return { from: previous, to: target, eventsApplied: applied() };
  }

  /**
   * Builds the slot to the head and switches to it. A conflict at the switch — a store that commits a build's
   * write-outs behind its next batches found one failed (the SQL store), so the slot is stored behind where the
   * build reached — resumes the build from its checkpoint, as a conflict during it does.
   */
  private async buildAndSwitch(
    def: D,
    target: ProjectionSlot,
    total: number,
    options: RebuildOptions,
  ): Promise<{ worker: SlotWorker<D>; applied: () => number; previous: ProjectionSlot | null }> {
    for (let attempt = 1; ; attempt++) {
      const built = await this.buildToHead(def, target, total, options);
      options.onSwitching?.();
      try {
        return { ...built, previous: await this.readModels.activate(target) };
      } catch (e) {
        await built.worker.stop(); // it follows the slot until a switch adopts it: not this one
        if (!(e instanceof CheckpointConflictError) || attempt >= BUILD_ATTEMPTS) throw e;
        this.log(`${def.name}: switch to ${slotKey(target)} refused, resuming the build from its checkpoint: ${e.message}`);
      }
    }
  }

  /**
   * Runs a worker on the building slot until it reaches the head, from the slot's stored checkpoint. A conflict
   * restarts it from the checkpoint read again: a store that finishes a batch a crash left pending (MongoDB without
   * transactions) moves the checkpoint and refuses the batch that found it, and a resumed build must not fail on that.
   */
  private async buildToHead(def: D, target: ProjectionSlot, total: number, options: RebuildOptions): Promise<{ worker: SlotWorker<D>; applied: () => number }> {
    for (let attempt = 1; ; attempt++) {
      const start = await this.readModels.state(target);
      if (!start) throw new CheckpointConflictError(target, 'build slot vanished');
      const report = (n: number, position: GlobalPosition) =>
        options.onProgress?.({ slot: target, applied: start.eventsApplied + n, total: Math.max(total, start.eventsApplied + n), position });
      let caughtUp!: () => void;
      const reachedHead = new Promise<void>((r) => (caughtUp = r));
      const worker = this.newWorker(target, def, start.position, { onCommitted: report, onCaughtUp: () => caughtUp() }, options.history);
      report(0, start.position);
      const first = await Promise.race([reachedHead.then(() => null), worker.done]);
      if (!first) return { worker, applied: () => start.eventsApplied + worker.appliedHere };
      if (first.kind === 'faulted') throw new ProjectionFaultedError(target, first.fault);
      if (first.kind === 'stopped') throw new Error(`build of ${slotKey(target)} stopped before it caught up`);
      if (first.kind === 'conflict' && attempt < BUILD_ATTEMPTS) {
        this.log(`${def.name}: build of ${slotKey(target)} refused a commit, resuming from its checkpoint: ${first.error.message}`);
        continue;
      }
      throw first.error;
    }
  }

  private log(line: string): void {
    this.options.log?.(`[projections] ${line}`);
  }
}
