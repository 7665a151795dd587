import type { RecordedEvent } from '@dob/event-store';
import type { SqlExecutor } from '@dob/sql';
import type { CollectionSpecs } from './documents/collections';
import type { ProjectionState } from './documents/batch-state';

export type ProjectionStatus = 'catching_up' | 'live' | 'faulted' | 'rebuilding';

/** Logical collection name → physical name of one version/generation (e.g. `counts` → `rm_event_type_counts_v1_counts`). */
export type ProjectionTables = Readonly<Record<string, string>>;

/** What the runner needs of any projection: identity, the events it reads, its batch size. */
export interface ProjectionHeader {
  /** Safe identifier, e.g. `event_type_counts`. */
  readonly name: string;
  /** Bump when the definition changes meaning: the runner then builds the new version blue/green. */
  readonly version: number;
  /** Event types read (server-side filter); empty = every type. */
  readonly eventTypes: readonly string[];
  /** Overrides the runner's batch size for this projection. */
  readonly batchSize?: number;
}

/** The type filter the runner sends to the event store for a projection: undefined (every type) when it lists none. */
export function subscribedTypes(header: ProjectionHeader): readonly string[] | undefined {
  return header.eventTypes.length ? header.eventTypes : undefined;
}

/** Whether the runner hands an event of this type to the projection (what the store's filter lets through). */
export function readsEventType(header: ProjectionHeader, type: string): boolean {
  return subscribedTypes(header)?.includes(type) ?? true;
}

/**
 * A projection turns events into read-model documents, defined once for every store: its collections (fields, key,
 * indexes) and a reducer that applies one event by reading and writing documents through ProjectionState. The
 * store persists what the reducer wrote (the SQL store as rows of per-slot tables behind stable views, the MongoDB
 * store as per-slot collections); the reducer never sees which. Collections are named per version (and rebuild
 * generation), so a new version builds side by side with the serving one.
 */
export interface ProjectionDefinition extends ProjectionHeader {
  /** Logical collections; each gets a physical name per version/generation. */
  readonly collections: CollectionSpecs;
  /**
   * Applies one event (batches are applied event by event, in `$all` order, each seeing the writes before it).
   * Deterministic: reads only the event and the documents, so a rebuild reproduces the model. Throwing faults
   * the slot at this event. A large batch may hand each event to apply more than once (speculative passes that
   * learn which documents to fetch in bulk, documents/prefetch.ts): only the last pass's writes persist, so apply
   * must have no effect outside `state`.
   */
  apply(state: ProjectionState, event: RecordedEvent): Promise<void>;
}

/**
 * A projection whose batch must commit with other SQL writes in one transaction — the webhook fan-out, which
 * enqueues deliveries into the SQL delivery queue together with its checkpoint. Only the SQL store runs these;
 * read models are ProjectionDefinitions, portable across stores.
 */
export interface SqlProjectionDefinition extends ProjectionHeader {
  /** Logical table names; each gets a physical name per version/generation and a stable view. */
  readonly tables: readonly string[];
  /** Creates the (empty) tables, inside the transaction that also creates the checkpoint. */
  setup(tx: SqlExecutor, tables: ProjectionTables): Promise<void>;
  /** Applies a batch in the transaction that also advances the checkpoint; throwing rolls both back. */
  apply(tx: SqlExecutor, events: readonly RecordedEvent[], tables: ProjectionTables): Promise<void>;
}

export const isSqlProjection = (d: ProjectionDefinition | SqlProjectionDefinition): d is SqlProjectionDefinition => 'tables' in d;

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
