import type { RecordedEvent } from '@dob/event-store';
import type { SqlExecutor } from '@dob/sql';

export type ProjectionStatus = 'catching_up' | 'live' | 'faulted' | 'rebuilding';

/** Logical table name → physical name of one version/generation (e.g. `counts` → `rm_event_type_counts_v1_counts`). */
export type ProjectionTables = Readonly<Record<string, string>>;

/**
 * A projection turns events into read-model tables. Its tables are named per version (and rebuild generation), so
 * a new version builds side by side with the serving one; queries read the stable view `rm_<name>_<table>`.
 * `Tx` is the read-model store's transaction handle (a SqlExecutor for the SQL store).
 */
export interface ProjectionDefinition<Tx = SqlExecutor> {
  /** Safe identifier, e.g. `event_type_counts`. */
  readonly name: string;
  /** Bump when setup/apply change meaning: the runner then builds the new version blue/green. */
  readonly version: number;
  /** Event types read (server-side filter); empty = every type. */
  readonly eventTypes: readonly string[];
  /** Logical table names; each gets a physical name per version/generation and a stable view. */
  readonly tables: readonly string[];
  /** Creates the (empty) tables, inside the transaction that also creates the checkpoint. */
  setup(tx: Tx, tables: ProjectionTables): Promise<void>;
  /** Applies a batch in the transaction that also advances the checkpoint; throwing rolls both back. */
  apply(tx: Tx, events: readonly RecordedEvent[], tables: ProjectionTables): Promise<void>;
  /** Overrides the runner's batch size for this projection. */
  readonly batchSize?: number;
}

/** One physical build of a projection: (name, version, generation). Generation 0 is the first build of a version. */
export interface ProjectionSlot {
  readonly name: string;
  readonly version: number;
  readonly generation: number;
}

export function slotKey(s: ProjectionSlot): string {
  return `${s.name}@v${s.version}.g${s.generation}`;
}

export function sameSlot(a: ProjectionSlot | null | undefined, b: ProjectionSlot | null | undefined): boolean {
  return !!a && !!b && a.name === b.name && a.version === b.version && a.generation === b.generation;
}
