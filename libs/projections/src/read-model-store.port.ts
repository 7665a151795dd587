import type { GlobalPosition } from '@dob/event-store';
import type { ProjectionDefinition, ProjectionSlot, ProjectionStatus, ProjectionTables } from './projection';

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
 * Where read models and their checkpoints live. Every write to a slot's tables happens in a transaction that also
 * moves that slot's checkpoint, which is what makes projection effects exactly-once. The SQL adapter keeps tables
 * per slot and stable views; a MongoDB adapter would keep collections per slot, the checkpoint in a collection
 * written in the same replica-set transaction, and the active row read by queries (or Mongo views) to pick the
 * serving collections.
 */
export interface ReadModelStore<Tx> {
  /** Creates the checkpoint and active-slot bookkeeping (idempotent). */
  init(): Promise<void>;
  /** Physical names of a slot's tables. */
  tablesFor(slot: ProjectionSlot, logical: readonly string[]): ProjectionTables;
  /** Checkpoints of every slot (of one projection when name is given), with which one is active. */
  states(name?: string): Promise<SlotState[]>;
  state(slot: ProjectionSlot): Promise<SlotState | null>;
  activeSlot(name: string): Promise<ProjectionSlot | null>;
  /** One transaction: the definition's setup on fresh tables + the checkpoint at START with this status. */
  createSlot(definition: ProjectionDefinition<Tx>, slot: ProjectionSlot, status: ProjectionStatus): Promise<void>;
  /**
   * One transaction: locks the checkpoint, checks it is still `expected` and not faulted (else
   * CheckpointConflictError), runs `write` (if any), moves the checkpoint to `next` and adds `applied`.
   */
  commitBatch(
    slot: ProjectionSlot,
    expected: GlobalPosition,
    next: GlobalPosition,
    applied: number,
    write?: (tx: Tx, tables: ProjectionTables) => Promise<void>,
  ): Promise<void>;
  setStatus(slot: ProjectionSlot, status: ProjectionStatus, fault?: ProjectionFault | null): Promise<void>;
  /**
   * The atomic blue/green switch: in one transaction the slot becomes the one queries read (stable views + the
   * active row); a `rebuilding` slot becomes `live`. Returns the previously active slot.
   */
  activate(slot: ProjectionSlot): Promise<ProjectionSlot | null>;
  /** Drops a slot that no longer serves: its checkpoint row (first, so a straggling batch conflicts) and tables. */
  dropSlot(slot: ProjectionSlot): Promise<void>;
  /** One transaction: the slot's tables re-created empty, checkpoint back to START, status catching_up. */
  resetSlot(definition: ProjectionDefinition<Tx>, slot: ProjectionSlot): Promise<void>;
}
