import {
  comparePositions,
  positionToString as formatPosition,
  type EventStore,
  type GlobalPosition,
  type ReadAllPage,
  type RecordedEvent,
  type Subscription,
} from '@dob/event-store';
import type { LeaseFence } from '@dob/leases';
import { subscribedTypes, type ProjectionDefinition, type ProjectionHeader, type ProjectionSlot } from '../projection';
import { CheckpointConflictError, type ProjectionFault, type ReadModelStore, type ReducedBatch } from '../read-model-store.port';

export type WorkerEnd =
  | { readonly kind: 'stopped' }
  | { readonly kind: 'faulted'; readonly fault: ProjectionFault }
  | { readonly kind: 'conflict'; readonly error: CheckpointConflictError }
  | { readonly kind: 'failed'; readonly error: unknown };

/** Thrown inside onPage to end the subscription with a reason the runner acts on. */
class Halt extends Error {
  constructor(readonly end: WorkerEnd) {
    super(end.kind);
  }
}

export interface SlotWorkerOptions {
  readonly batchSize: number;
  /**
   * Events per batch while the slot is behind (a rebuild, a projector that was stopped): the backlog is read in
   * pages this large and each page applied as ONE batch, so a document touched many times is written once per
   * page. Then the worker follows `$all` with `batchSize`. Default: batchSize.
   */
  readonly catchUpBatchSize?: number;
  readonly pollIntervalMs?: number;
  /** After every committed batch: events applied by this worker so far and the new checkpoint. */
  readonly onCommitted?: (appliedHere: number, position: GlobalPosition) => void;
  readonly onCaughtUp?: () => void;
  /** The lease this worker runs under (several processes): every batch's commit is fenced with it. */
  readonly fence?: LeaseFence;
}

/**
 * Follows `$all` for one slot from its checkpoint. Each page is applied as ONE batch that also moves the
 * checkpoint, exactly once however the store achieves it. If apply throws, nothing of the batch was written; the
 * page is then replayed one event per batch so the good prefix lands, and the first failing event faults the slot (error, event id and position
 * recorded) — only this slot stops.
 */
export class SlotWorker<D extends ProjectionHeader = ProjectionDefinition> {
  private position: GlobalPosition;
  private subscription?: Subscription;
  private stopping = false;
  appliedHere = 0;
  caughtUp = false;
  readonly done: Promise<WorkerEnd>;

  constructor(
    private readonly store: EventStore,
    private readonly readModels: ReadModelStore<D>,
    private readonly definition: D,
    readonly slot: ProjectionSlot,
    from: GlobalPosition,
    private readonly options: SlotWorkerOptions,
  ) {
    this.position = from;
    this.done = this.run();
  }

  get checkpoint(): GlobalPosition {
    return this.position;
  }

  async stop(): Promise<WorkerEnd> {
    this.stopping = true;
    await this.subscription?.stop();
    return this.done;
  }

  private async run(): Promise<WorkerEnd> {
    const types = subscribedTypes(this.definition);
    try {
      // Under a lease, claim the checkpoint first (an empty commit with the fence): a store that records the
      // fence on the checkpoint (MongoDB) refuses the previous owner from here on, and a lost lease shows at once.
      if (this.options.fence) await this.readModels.commitBatch(this.definition, this.slot, this.position, this.position, [], this.options.fence);
      await this.catchUp(types);
      if (this.stopping) return { kind: 'stopped' };
      await this.readModels.caughtUp?.(this.slot);
      this.subscription = this.store.subscribeToAll({
        after: this.position,
        maxCount: this.definition.batchSize ?? this.options.batchSize,
        types,
        pollIntervalMs: this.options.pollIntervalMs,
        onPage: (page) => this.onPage(page),
        onCaughtUp: () => {
          this.caughtUp = true;
          this.options.onCaughtUp?.();
        },
      });
      if (this.stopping) await this.subscription.stop();
      await this.subscription.done;
      return { kind: 'stopped' };
    } catch (e) {
      if (e instanceof Halt) return e.end;
      if (e instanceof CheckpointConflictError) return { kind: 'conflict', error: e };
      return { kind: 'failed', error: e };
    }
  }

  /**
   * The backlog in large pages (the fast path of rebuilds and catch-up), until a page is not full. Three pages are
   * in hand at once: the next one is read (its own connection) while this one is reduced and the one before it
   * commits — where the store can reduce without reading (ReadModelStore.reduceAhead: a slot it knows in full), the
   * reducers and the database work side by side instead of taking turns.
   */
  private async catchUp(types: readonly string[] | undefined): Promise<void> {
    const maxCount = this.options.catchUpBatchSize ?? 0;
    if (maxCount <= (this.definition.batchSize ?? this.options.batchSize)) return;
    let next = this.store.readAll({ after: this.position, maxCount, types });
    let committing: Promise<void> | undefined;
    let reducedThrough = this.position;
    try {
      for (;;) {
        const page = await next;
        if (this.stopping) return;
        if (page.hasMore) {
          next = this.store.readAll({ after: page.last, maxCount, types });
          next.catch(() => undefined); // a failed read-ahead surfaces when awaited, or not at all if we stop first
        }
        const reduced = committing ? await this.reduceAhead(reducedThrough, page) : undefined;
        if (committing) {
          const previous = committing;
          committing = undefined;
          await previous;
          if (this.stopping) return;
        }
        const commit = this.onPage(page, reduced);
        if (comparePositions(page.last, reducedThrough) > 0) reducedThrough = page.last;
        if (!page.hasMore) return await commit;
        if (this.readModels.reduceAhead) {
          committing = commit;
          // Awaited after the next page is read and reduced; until then a failure must not count as unhandled.
          commit.catch(() => undefined);
        } else await commit;
      }
    } finally {
      await committing?.catch(() => undefined); // stopping or failing: no commit left running behind the worker
    }
  }

  /** The page reduced now, while the previous page commits; undefined if the store cannot (or the reducer threw:
   *  onPage then applies the page the usual way, which finds the event that fails). */
  private async reduceAhead(expected: GlobalPosition, page: ReadAllPage): Promise<ReducedBatch | undefined> {
    if (page.events.length === 0) return undefined;
    return this.readModels.reduceAhead?.(this.definition, this.slot, expected, page.last, page.events).catch(() => undefined);
  }

  private async onPage(page: ReadAllPage, reduced?: ReducedBatch): Promise<void> {
    if (this.stopping) return;
    const events = page.events;
    if (events.length === 0) {
      // Only skipped (filtered-out) events: still move the checkpoint so lag reads true and restarts skip them.
      if (comparePositions(page.last, this.position) > 0) await this.commit(page.last, []);
      return;
    }
    try {
      await this.commit(page.last, events, reduced);
    } catch (e) {
      if (e instanceof CheckpointConflictError) throw new Halt({ kind: 'conflict', error: e });
      if (this.readModels.isUnavailable?.(e)) throw e;
      await this.applyOneByOne(events, e);
      if (comparePositions(page.last, this.position) > 0) await this.commit(page.last, []);
    }
  }

  private async applyOneByOne(events: readonly RecordedEvent[], batchError: unknown): Promise<void> {
    for (const event of events) {
      try {
        await this.commit(event.position, [event]);
      } catch (e) {
        if (e instanceof CheckpointConflictError) throw new Halt({ kind: 'conflict', error: e });
        if (this.readModels.isUnavailable?.(e)) throw e; // the server away: retried, not a poison event
        const fault: ProjectionFault = {
          error: describe(e ?? batchError),
          eventId: event.id,
          position: event.position,
        };
        await this.readModels.setStatus(this.slot, 'faulted', fault);
        throw new Halt({ kind: 'faulted', fault });
      }
    }
  }

  private async commit(next: GlobalPosition, events: readonly RecordedEvent[], reduced?: ReducedBatch): Promise<void> {
    await this.readModels.commitBatch(this.definition, this.slot, this.position, next, events, this.options.fence, reduced);
    this.position = next;
    this.appliedHere += events.length;
    this.options.onCommitted?.(this.appliedHere, next);
    // Yield a macrotask: on PGlite (one connection) this lets queued API queries in between batches.
    await new Promise((resolve) => setImmediate(resolve));
  }

  toString(): string {
    return `${this.slot.name} v${this.slot.version} g${this.slot.generation} at ${formatPosition(this.position)}`;
  }
}

function describe(e: unknown): string {
  if (e instanceof Error) return `${e.name}: ${e.message}`;
  return String(e);
}
