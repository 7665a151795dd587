import type { Doc } from './collections';
import { FieldIndex, indexFields } from './field-index';

/**
 * A slot cache's default budget, in documents. About 0.4 KB each held (map entry, id, frozen document, indexes),
 * so some 200 MB at most per slot in a rebuild — beside the batch in flight, well inside a rebuild's 1 GB.
 */
export const DEFAULT_SLOT_CACHE_DOCUMENTS = 500_000;

/**
 * Documents a collection no reducer has read may hold before it is forgotten, whatever the budget: remembering a
 * history-sized collection that is only ever written (a wallet's activity rows: 807,502 at 1M events) only to know
 * its new rows cost a rebuild hundreds of MB; once forgotten, its rows are still loaded by COPY while every write of
 * it has been a new row (writesOnlyNew).
 */
export const UNREAD_COLLECTION_DOCUMENTS = 50_000;

/** One collection's share of a slot cache. */
interface CachedCollection {
  readonly docs: Map<string, Doc | null>;
  /** Every document of the collection is in `docs`: a miss means absent, a filter is answered here. */
  complete: boolean;
  /** A reducer has read it (eviction drops collections nobody reads first: writing them needs no memory of them). */
  read: boolean;
  /** Filter fields → index of `docs` on them, built on the first filter of those fields. */
  readonly indexes: Map<string, FieldIndex>;
  /** Every write of it seen here added a document (none replaced one known), so far as this cache knew. */
  onlyNew: boolean;
}

/**
 * What this process knows of one slot's documents as of one checkpoint: the documents it read or wrote (null =
 * known absent). Valid only while the checkpoint is still where this process left it — any other writer moves the
 * checkpoint first (a commit is conditional on it), so the store drops the cache on the first mismatch. Both stores
 * keep one per slot (MongoDB since issue 23, SQL since issue 33).
 *
 * `complete` (per collection) means every document of it is here: the slot was created or reset empty by this
 * process and nothing of the collection was evicted since. A miss is then an absent document and a filter is
 * answered from an index here, so a rebuild reads nothing back from the server — on FerretDB every round trip is a
 * PostgreSQL transaction, and on SQL it spares the speculative passes that predict a batch's reads.
 *
 * Past `limit` documents one collection at a time is forgotten (and no longer complete), those no reducer has read
 * first, the largest first: a history-sized collection that is only ever written (a wallet's activity rows) costs
 * nothing to forget, while the small, hot ones (pools, balances) stay known. A collection no reducer has read is
 * forgotten past UNREAD_COLLECTION_DOCUMENTS whatever the budget.
 */
export class SlotCache {
  private readonly collections = new Map<string, CachedCollection>();
  private size = 0;
  private forgotten = 0;
  /** Collections were loaded in full into this cache (load()): those are known like a slot created here. */
  private preloaded = false;

  constructor(
    readonly resets: number,
    public position: string,
    private readonly startedComplete: boolean,
    private readonly limit: number,
    /**
     * Writes of a collection this cache does not know in full are taken for new rows until one is seen replacing a
     * document (writesOnlyNew), though the cache did not start complete: a serving slot's backlog, whose collections
     * only ever added to (a wallet's activity rows, a pool's events) would otherwise go in by the upsert, at about
     * twice the database's cost of COPY into the same indexed table. A wrong guess costs one COPY rolled back to its
     * savepoint, once per collection (sawReplaced).
     */
    private readonly presumesNew = startedComplete,
  ) {}

  /** Every collection is known in full (nothing to read from the server at all). */
  get complete(): boolean {
    return this.startedComplete && this.forgotten === 0;
  }

  /**
   * Every collection a reducer has read is known in full: only collections nobody reads (forgotten past
   * UNREAD_COLLECTION_DOCUMENTS) are not, so a batch's reads are all answered here and need no prediction.
   */
  get readsComplete(): boolean {
    if (!this.startedComplete && !this.preloaded) return false;
    for (const entry of this.collections.values()) if (entry.read && !entry.complete) return false;
    return true;
  }

  /** Documents held (known-absent keys included). */
  get documents(): number {
    return this.size;
  }

  /** Whether every document of the collection is known here. */
  knowsAll(collection: string): boolean {
    return this.entry(collection).complete;
  }

  /** The document, null if known absent, undefined if unknown. */
  lookup(collection: string, id: string): Doc | null | undefined {
    const entry = this.entry(collection);
    entry.read = true;
    const known = entry.docs.get(id);
    if (known !== undefined) return known;
    return entry.complete ? null : undefined;
  }

  /**
   * Whether the slot as of this cache's checkpoint is known not to hold the document: a batch's write of it is then
   * a new row (a store may load such rows in bulk). Unlike lookup, this is no reducer's read.
   */
  knownAbsent(collection: string, id: string): boolean {
    const entry = this.collections.get(collection);
    if (!entry) return this.startedComplete; // never touched: complete as it started
    const known = entry.docs.get(id);
    return known === null || (known === undefined && entry.complete);
  }

  /**
   * Whether a write of the document may be stored as a new one: known absent, or unknown in a collection every write
   * of which so far added a document (writesOnlyNew) — a store that finds it taken after all falls back to a guarded
   * replace and says so with sawReplaced. Like knownAbsent, no reducer's read (it forgets nothing unread sooner).
   */
  takenForNew(collection: string, id: string): boolean {
    if (this.knownAbsent(collection, id)) return true;
    const entry = this.collections.get(collection);
    return entry !== undefined && entry.docs.get(id) === undefined && this.writesOnlyNew(collection);
  }

  /** Documents of a collection matching an equality filter (in no particular order); only meaningful when complete. */
  matching(collection: string, where: Doc): Doc[] {
    const entry = this.entry(collection);
    entry.read = true;
    const fields = indexFields(where);
    const name = fields.join(',');
    let index = entry.indexes.get(name);
    if (!index) {
      entry.indexes.set(name, (index = new FieldIndex(fields)));
      for (const [id, doc] of entry.docs) index.move(id, undefined, doc);
    }
    const out: Doc[] = [];
    for (const id of index.ids(where)) out.push(entry.docs.get(id)!);
    return out;
  }

  /**
   * After this process committed a batch: its documents as written, the checkpoint where it moved. Then, past the
   * budget, collections are forgotten: every document held here is now committed, so a reducer that misses one reads
   * it as it stands.
   */
  committed(position: string, writes: readonly { write: { collection: string; id: string; doc: Doc } }[]): void {
    this.heldAhead(position, writes);
    if (this.overBudget) this.forgetSome();
  }

  /**
   * A batch reduced ahead, before it commits (the SQL store's reduceAhead): its documents held from now so the next
   * batch reduces on top of them, and nothing forgotten — the store may still be a batch behind this cache, and a
   * forgotten document of that batch would be read back as it stood before it. The store stops reducing ahead once
   * the cache is over its budget (overBudget) and lets the next commit, in its transaction, forget.
   */
  heldAhead(position: string, writes: readonly { write: { collection: string; id: string; doc: Doc } }[]): void {
    for (const { write } of writes) {
      const entry = this.entry(write.collection);
      if (entry.onlyNew && entry.docs.get(write.id)) entry.onlyNew = false;
      this.remember(write.collection, write.id, write.doc);
    }
    this.position = position;
  }

  /** More documents held than the budget (or an unread collection past its own): the next committed() forgets some. */
  get overBudget(): boolean {
    if (this.size > this.limit) return true;
    for (const entry of this.collections.values()) if (!entry.read && entry.docs.size > UNREAD_COLLECTION_DOCUMENTS) return true;
    return false;
  }

  /**
   * Whether every write of the collection this cache saw added a document: while it knew the collection in full (or,
   * presuming new rows, wherever it knew the document), no write replaced a known one, and none since (a store that
   * loads such writes as new rows and finds one taken says so with sawReplaced). A store may then try loading the
   * collection's writes as new rows even once forgotten, or never known.
   */
  writesOnlyNew(collection: string): boolean {
    return this.presumesNew && (this.collections.get(collection)?.onlyNew ?? true);
  }

  /** A write of the collection replaced a stored document: its writes are no longer taken for new rows. */
  sawReplaced(collection: string): void {
    this.entry(collection).onlyNew = false;
  }

  /**
   * Every document of a collection this cache has not touched yet, read as of its checkpoint: from now on it is
   * known in full here (a miss is an absent document), as in a slot this process created.
   */
  load(collection: string, docs: Iterable<readonly [string, Doc]>): void {
    if (this.collections.has(collection)) throw new Error(`slot cache: ${collection} is already held`);
    const entry = this.entry(collection);
    for (const [id, doc] of docs) this.remember(collection, id, doc);
    entry.complete = true;
    this.preloaded = true;
  }

  /** A document read or written. Never forgets anything by itself (committed() does, once nothing is in flight). */
  remember(collection: string, id: string, doc: Doc | null): void {
    const entry = this.entry(collection);
    const before = entry.docs.get(id);
    if (before === undefined) this.size++;
    entry.docs.set(id, doc);
    if (entry.indexes.size) for (const index of entry.indexes.values()) index.move(id, before, doc); // no iterator when none
  }

  /** Forgets whole collections until a tenth of the budget is free again (so it does not run on every write). */
  private forgetSome(): void {
    for (const entry of this.collections.values()) {
      if (!entry.read && entry.docs.size > UNREAD_COLLECTION_DOCUMENTS) this.forget(entry);
    }
    const target = Math.floor(this.limit * 0.9);
    while (this.size > target) {
      let victim: CachedCollection | undefined;
      for (const entry of this.collections.values()) {
        if (entry.docs.size === 0) continue;
        const better = !victim || (entry.read === victim.read ? entry.docs.size > victim.docs.size : !entry.read);
        if (better) victim = entry;
      }
      if (!victim) return;
      this.forget(victim);
    }
  }

  private forget(entry: CachedCollection): void {
    this.size -= entry.docs.size;
    entry.docs.clear();
    entry.indexes.clear();
    if (entry.complete) this.forgotten++;
    entry.complete = false;
  }

  private entry(collection: string): CachedCollection {
    let entry = this.collections.get(collection);
    if (!entry) {
      entry = { docs: new Map(), complete: this.startedComplete, read: false, indexes: new Map(), onlyNew: true };
      this.collections.set(collection, entry);
    }
    return entry;
  }
}
