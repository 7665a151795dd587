import type { GlobalPosition, RecordedEvent } from '@dob/event-store';
import type { LeaseFence } from '@dob/leases';
import type { Doc } from './documents/collections';
import type { ProjectionDefinition, ProjectionHeader, ProjectionSlot, ProjectionStatus, ProjectionTables } from './projection';

export interface ProjectionFault {
  readonly error: string;
  readonly eventId: string | null;
  readonly position: GlobalPosition | null;
}

/** The checkpoint row of one slot. */
export interface SlotState {
  readonly slot: ProjectionSlot;
  readonly position: GlobalPosition;
  readonly status: ProjectionStatus;
  readonly eventsApplied: number;
  readonly fault: ProjectionFault | null;
  /** Physical tables of this slot, kept so an old slot can be dropped without its (maybe deleted) definition. */
  readonly tables: ProjectionTables;
  readonly active: boolean;
  readonly updatedAt: Date;
}

/** A batch reduced by ReadModelStore.reduceAhead, opaque to the worker. */
export interface ReducedBatch {
  readonly reducedAhead: true;
}

/** The batch's checkpoint moved under us (another runner, a reset, a switch): reload and resume from the store. */
export class CheckpointConflictError extends Error {
  override readonly name = 'CheckpointConflictError';
  constructor(
    readonly slot: ProjectionSlot,
    reason: string,
  ) {
    super(`checkpoint of ${slot.name} v${slot.version} g${slot.generation}: ${reason}`);
  }
}

/**
 * Where read models and their checkpoints live. A batch's document writes and its checkpoint move take effect
 * exactly once: the SQL store commits both in one transaction; the MongoDB store (no multi-document transactions
 * on FerretDB or a standalone server) journals the batch's writes, guards every document write by the position
 * it carries, and moves the checkpoint last (docs/read-models.md). Both keep collections per slot, and switch the
 * serving slot atomically (SQL: stable views; MongoDB: the active-slot document queries resolve names through).
 */
export interface ReadModelStore<D extends ProjectionHeader = ProjectionDefinition> {
  /**
   * Which store this is, where several may hold the same projections beside one event store (read models in
   * MongoDB beside read models in SQL): part of every projection's lease name, so each store's projections have
   * owners of their own. Unset: the SQL store of the event store's database (`projection:<name>`, as always).
   */
  readonly leaseScope?: string;
  /**
   * Whether `e` says the store's server is away (refused, reset, not selectable) rather than that the events cannot
   * be applied: the slot worker then stops and is retried instead of faulting the projection at that event, which
   * only `projections retry` would undo (issue 31: a MongoDB projector faulted every projection on a FerretDB
   * restart). Unset: every apply error faults.
   */
  isUnavailable?(e: unknown): boolean;
  /** Creates the checkpoint and active-slot bookkeeping (idempotent). */
  init(): Promise<void>;
  /** Physical names of a slot's collections. */
  tablesFor(slot: ProjectionSlot, logical: readonly string[]): ProjectionTables;
  /** Checkpoints of every slot (of one projection when name is given), with which one is active. */
  states(name?: string): Promise<SlotState[]>;
  state(slot: ProjectionSlot): Promise<SlotState | null>;
  activeSlot(name: string): Promise<ProjectionSlot | null>;
  /** Creates the definition's empty collections (with their indexes) and the checkpoint at START with this status. */
  createSlot(definition: D, slot: ProjectionSlot, status: ProjectionStatus): Promise<void>;
  /**
   * Applies `events` with the definition's reducer and moves the checkpoint from `expected` to `next`, exactly
   * once: if the checkpoint is not `expected` or the slot is faulted, nothing is written (CheckpointConflictError);
   * if the reducer throws, nothing is written and the error propagates. With a `fence` (the lease of the process
   * running this projection), the lease must still carry its token when the batch commits, checked as part of the
   * commit; otherwise nothing is written (CheckpointConflictError): a process that lost its lease commits nothing.
   */
  commitBatch(
    definition: D,
    slot: ProjectionSlot,
    expected: GlobalPosition,
    next: GlobalPosition,
    events: readonly RecordedEvent[],
    fence?: LeaseFence,
    reduced?: ReducedBatch,
  ): Promise<void>;
  /**
   * Optional pipelining of a backlog (issue 33): reduces the batch from `expected` to `next` now, in memory, if the
   * store can without reading anything — it knows every document of the slot as of `expected`, counting batches
   * reduced ahead whose commits are still in flight. The worker then reduces one page while the page before it
   * commits, and hands the result to commitBatch, which writes it (or, if what it was reduced from no longer
   * holds, reduces again). Undefined: commitBatch reduces as usual. A reducer error propagates.
   */
  reduceAhead?(
    definition: D,
    slot: ProjectionSlot,
    expected: GlobalPosition,
    next: GlobalPosition,
    events: readonly RecordedEvent[],
  ): Promise<ReducedBatch | undefined>;
  /**
   * The worker has worked through its backlog (its catch-up pages ended) and follows live from here: a store that
   * holds a serving slot's backlog batches in memory (the SQL store's build) writes them out now. Optional.
   */
  caughtUp?(slot: ProjectionSlot): Promise<void>;
  setStatus(slot: ProjectionSlot, status: ProjectionStatus, fault?: ProjectionFault | null): Promise<void>;
  /**
   * The atomic blue/green switch: the slot becomes the one queries read; a `rebuilding` slot becomes `live`.
   * Returns the previously active slot.
   */
  activate(slot: ProjectionSlot): Promise<ProjectionSlot | null>;
  /** Drops a slot that no longer serves: its checkpoint (first, so a straggling batch conflicts) and collections. */
  dropSlot(slot: ProjectionSlot): Promise<void>;
  /** The slot's collections re-created empty, checkpoint back to START, status catching_up. */
  resetSlot(definition: D, slot: ProjectionSlot): Promise<void>;
  /** Every document of one collection of the serving slot, in key order (operators' reads, tests). */
  documents(definition: ProjectionDefinition, collection: string): Promise<Doc[]>;
}
