import type { Binary, Db } from 'mongodb';
import { slotKey, type ProjectionSlot, type ProjectionStatus, type ProjectionTables } from '../projection';
import type { DeferredIndexes, StoredWrite } from './mongo-documents';

/**
 * The MongoDB store's bookkeeping, in one collection so a query resolves every projection's serving collections
 * (and a cache token) with a single find: `slot:<name>@v<version>.g<generation>` checkpoints,
 * `active:<name>` switches, `retired:<collection>` drops waiting out their grace, and `changes:<what>` counters
 * that service-owned data (featured overrides) bumps for readers' caches.
 */
export const READ_MODEL_STATE = 'read_model_state';
/** Journalled writes of batches between their commit point and their checkpoint move. */
export const READ_MODEL_JOURNAL = 'read_model_journal';

export const slotId = (s: ProjectionSlot): string => `slot:${slotKey(s)}`;
export const activeId = (name: string): string => `active:${name}`;

export interface PendingBatch {
  readonly batch: string;
  readonly chunks: number;
  /** Where the checkpoint moves once the batch's writes are applied. */
  readonly next: string;
  readonly applied: number;
  /**
   * A write-out of new documents only, to a slot nobody reads, is not journalled (`chunks` 0): every document it
   * writes has a `_pos` above this bound (the checkpoint it was reduced from, encoded as `_pos` is; '' for START) and
   * every stored one before it is at or below it, so a crash is undone by deleting the slot's documents above the
   * bound, the checkpoint left where it was (MongoReadModelStore.rollBack). Absent on journalled batches.
   */
  readonly rollback_above?: string;
}

export interface SlotDoc extends ProjectionSlot {
  _id: string;
  kind: 'slot';
  position: string;
  status: ProjectionStatus;
  events_applied: number;
  error: string | null;
  failed_event_id: string | null;
  failed_position: string | null;
  tables: ProjectionTables;
  /** Bumped by every reset (new collections): a batch read before a reset cannot commit after it. */
  resets: number;
  pending: PendingBatch | null;
  /** Serving indexes a slot built for a rebuild still owes; built by activate() (absent on older slots: none). */
  deferred_indexes?: DeferredIndexes | null;
  /** Several processes: the highest lease token that committed here; a lower one (a stale owner) is refused. */
  fence?: number | null;
  /** The lease that token belongs to (tokens count per lease name); absent on checkpoints fenced before it was kept. */
  fence_name?: string | null;
  updated_at: Date;
}

export interface ActiveDoc extends ProjectionSlot {
  _id: string;
  kind: 'active';
  switched_at: Date;
}

/**
 * One chunk of a batch's journalled writes. `packed` holds them as one BSON document (`{ w: StoredWrite[] }`) in a
 * binary field: FerretDB converts every nested document of a stored document into its own JSON form, which for
 * chunks of thousands of read-model documents cost about 200 ms per 4 MB chunk to insert and as much to delete (its
 * filters are sequential scans that read each row's whole value); one binary value costs a fraction of that.
 * `writes`: the same as plain documents, as chunks were written before `packed` (still read after an upgrade).
 */
export interface JournalChunk {
  _id: string;
  batch: string;
  slot: string;
  packed?: Binary;
  writes?: StoredWrite[];
}

export interface ServingCollections {
  /** Per projection, its serving slot's physical collections. */
  readonly tables: ReadonlyMap<string, ProjectionTables>;
  /**
   * Changes whenever what queries read may have changed: a switch, a reset, a checkpoint move (every batch), a
   * bumped `changes:` counter. Equal tokens mean equal answers (read-result caches key on it).
   */
  readonly token: string;
}

/** One find over the bookkeeping: every projection's serving collections and the cache token. */
export async function readServingCollections(db: Db): Promise<ServingCollections> {
  const docs = (await db
    .collection(READ_MODEL_STATE)
    .find({ kind: { $in: ['slot', 'active', 'changes'] } })
    .toArray()) as unknown as (SlotDoc | ActiveDoc | { _id: string; kind: 'changes'; n: number })[];
  const slots = new Map(docs.filter((d): d is SlotDoc => d.kind === 'slot').map((d) => [d._id, d]));
  const tables = new Map<string, ProjectionTables>();
  const parts: string[] = [];
  for (const d of docs) {
    if (d.kind === 'active') {
      const slot = slots.get(slotId(d));
      if (!slot) continue;
      tables.set(d.name, slot.tables);
      // The slot's id too: a blue/green switch to a slot that happens to sit at the same resets@position must still
      // change the token (readers keep their resolved collections while it stays the same).
      parts.push(`${d._id}=${slotId(d)}:${slot.resets}@${slot.position}`);
    } else if (d.kind === 'changes') {
      parts.push(`${d._id}=${d.n}`);
    }
  }
  return { tables, token: parts.sort().join(';') };
}

/** Tells readers' caches that service-owned data they read changed (one counter per kind of data). */
export async function bumpChanges(db: Db, what: string): Promise<void> {
  await db
    .collection<{ _id: string; kind: string; n: number }>(READ_MODEL_STATE)
    .updateOne({ _id: `changes:${what}` }, { $set: { kind: 'changes' }, $inc: { n: 1 } }, { upsert: true });
}
