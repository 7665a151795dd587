import type { LeaseFence } from '@dob/leases';
import type { DocumentWrite } from '../documents/batch-state';
import type { CollectionSpecs } from '../documents/collections';
import type { BulkDocumentSource } from '../documents/prefetch';
import type { SlotCache } from '../documents/slot-cache';
import type { ProjectionSlot, ProjectionTables } from '../projection';
import type { WritePlan } from './sql-collections';

/** When a build's batches are written out (whichever comes first). */
export interface SqlBuildLimits {
  /** Events reduced since the last write-out. */
  readonly events: number;
  /** Distinct documents waiting. */
  readonly documents: number;
  /**
   * The share of buffered writes that must replace one buffered before (SqlBuild.saving) for the slot to keep a build
   * after a write-out: below it its batches go in directly.
   */
  readonly minSaving: number;
}

/**
 * Every 100,000 events or 50,000 documents: a write-out is one transaction, and a long one holds back every gap-safe
 * `$all` read of the cluster (the other projections' live lag); 50,000 rows go in well under a second here.
 */
export const DEFAULT_SQL_BUILD_LIMITS: SqlBuildLimits = { events: 100_000, documents: 50_000, minSaving: 0.1 };

/** A reducer of a build read what only the stored slot could answer: the build is written out first. */
export class BuildReadsStore extends Error {
  override readonly name = 'BuildReadsStore';
}

const refuse = (): Promise<never> => Promise.reject(new BuildReadsStore('a build read the stored slot, which is behind it'));

/** The stored slot behind a build: behind it by the buffered batches, so never to be read while they wait. */
export const BEHIND_BUILD: BulkDocumentSource = { get: refuse, find: refuse, getMany: refuse, findMany: refuse };

interface BufferedWrite {
  readonly write: DocumentWrite;
  /** The stored slot does not hold the document: true at its first write here stays true until written out. */
  readonly fresh: boolean;
}

/**
 * The batches of a slot being rebuilt, or working through a backlog, that this process reduced but has not written
 * yet (the MongoDB store's BuildBuffer, for SQL). A rebuild slot created empty here has a cache that knows every document its reducers read,
 * so a batch needs nothing from the database: its writes wait here, each document in its latest state, and go in
 * every DEFAULT_SQL_BUILD_LIMITS as one transaction that also moves the stored checkpoint. A hot document (a pool's
 * totals, a round) is then written once per write-out instead of once per page, and the reducers stop waiting on a
 * commit per page. A crash or a stop loses the buffered batches; the resumed build reduces them again from the
 * stored checkpoint.
 */
export class SqlBuild {
  /** Where the buffered batches end (the stored checkpoint once written out). */
  position: string;
  private events = 0;
  /** collection → document id → its latest write (no key string built per write). */
  private readonly writes = new Map<string, Map<string, BufferedWrite>>();
  private documents = 0;
  /** Writes added since the last write-out (documents counts each document once). */
  private added = 0;
  private readonly tryNew = new Set<string>();
  fence?: LeaseFence;

  constructor(
    readonly slot: ProjectionSlot,
    readonly tables: ProjectionTables,
    readonly collections: CollectionSpecs,
    readonly cache: SlotCache,
    /** The stored checkpoint: the write-out's condition. */
    public stored: string,
    /**
     * The slot serves queries (a catch-up's backlog, not a rebuild's): the build ends at the first live-sized batch
     * or when the worker has caught up (SqlReadModelStore.caughtUp), not at a switch.
     */
    readonly serving = false,
  ) {
    this.position = stored;
  }

  /** A reduced batch (already held by the cache) and how its writes would have gone in by themselves. */
  add(writes: readonly DocumentWrite[], plan: WritePlan, next: string, events: number, fence: LeaseFence | undefined): void {
    for (const write of writes) {
      let docs = this.writes.get(write.collection);
      if (!docs) this.writes.set(write.collection, (docs = new Map()));
      const first = docs.get(write.id);
      if (!first) this.documents++;
      this.added++;
      docs.set(write.id, { write, fresh: first ? first.fresh : plan.fresh.has(write) });
    }
    for (const collection of plan.tryNew) this.tryNew.add(collection);
    this.position = next;
    this.events += events;
    this.fence = fence;
  }

  /** Whether the buffer is due to be written out. */
  due(limits: SqlBuildLimits): boolean {
    return this.events >= limits.events || this.documents >= limits.documents;
  }

  /**
   * Whether buffering saved writes: at least `minSaving` of the writes buffered replaced one buffered before. A model
   * whose every write is a new row (a wallet's history) gains nothing from it, and holding its rows costs memory and CPU.
   */
  saving(minSaving: number): boolean {
    return this.added - this.documents >= this.added * minSaving;
  }

  /**
   * The buffered batches taken as one write-out — every document's last state, how they go in, the events they
   * applied, from which stored checkpoint to which — and the buffer emptied to go on from where they end, as if
   * they were stored already: the write-out commits while the next batches are reduced (SqlReadModelStore.writeOut).
   */
  take(): BuildWriteOut {
    const writes: DocumentWrite[] = [];
    const fresh = new Set<DocumentWrite>();
    for (const docs of this.writes.values()) {
      for (const w of docs.values()) {
        writes.push(w.write);
        if (w.fresh) fresh.add(w.write);
      }
    }
    const plan: WritePlan = { fresh, tryNew: new Set(this.tryNew), replaced: (collection) => this.cache.sawReplaced(collection) };
    const taken: BuildWriteOut = { writes, plan, events: this.events, from: this.stored, to: this.position, fence: this.fence };
    this.stored = this.position;
    this.writes.clear();
    this.documents = 0;
    this.added = 0;
    this.tryNew.clear();
    this.events = 0;
    return taken;
  }
}

/** A build's write-out (SqlBuild.take): one transaction moving the stored checkpoint from `from` to `to`. */
export interface BuildWriteOut {
  readonly writes: readonly DocumentWrite[];
  readonly plan: WritePlan;
  readonly events: number;
  readonly from: string;
  readonly to: string;
  readonly fence: LeaseFence | undefined;
}
