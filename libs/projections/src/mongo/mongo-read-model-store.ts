import { randomUUID } from 'node:crypto';
import type { LeaseFence } from '@dob/leases';
import { encodePosition, isMongoConnectionError, type MongoDatabase } from '@dob/mongo';
import { START, positionFromString as parsePosition, positionToString as formatPosition, type GlobalPosition, type RecordedEvent } from '@dob/event-store';
import { BSON, Binary, type ClientSession, type Db, type Document } from 'mongodb';
import { reduceBatch } from '../documents/batch-state';
import type { Doc } from '../documents/collections';
import type { ProjectionDefinition, ProjectionSlot, ProjectionStatus, ProjectionTables } from '../projection';
import { CheckpointConflictError, type ProjectionFault, type ReadModelStore, type SlotState } from '../read-model-store.port';
import { physicalTableName, physicalTables } from '../sql/read-model-names';
import {
  MongoDocumentSource,
  ReducedWrite,
  codecs,
  createCollections,
  createDeferredIndexes,
  insertNew,
  writeGuarded,
  writeUnserved,
  type StoredWrite,
} from './mongo-documents';
import { DEFAULT_SLOT_CACHE_DOCUMENTS, SlotCache } from '../documents/slot-cache';
import { READ_MODEL_JOURNAL, READ_MODEL_STATE, activeId, slotId, type ActiveDoc, type JournalChunk, type PendingBatch, type SlotDoc } from './mongo-layout';
import { SlotQueues } from '../documents/slot-queues';
import { BuildBuffer, DEFAULT_BUILD_FLUSH, type BuildFlushLimits } from './build-buffer';

const chunkId = (batch: string, i: number): string => `${batch}:${i}`;

export interface MongoReadModelStoreOptions {
  /**
   * How long a retired slot's collections outlive the switch: queries resolve collection names per request, so a
   * request that resolved the old names just before a switch still finds them. Default 10 s.
   */
  readonly retireGraceMs?: number;
  /**
   * Documents a slot's cache may hold (this process's knowledge of the slot, see SlotCache); past it whole
   * collections are forgotten, those no reducer reads first. Default DEFAULT_SLOT_CACHE_DOCUMENTS.
   */
  readonly cacheDocuments?: number;
  /** How often a slot being rebuilt writes its buffered batches out (BuildBuffer). Default DEFAULT_BUILD_FLUSH. */
  readonly buildFlush?: BuildFlushLimits;
  /** Test seam: called at each step of a batch's commit (to SIGKILL a process there). */
  readonly onStep?: (step: CommitStep) => void;
}

/**
 * The steps of a batch commit without transactions, in order; `cleared` (inside `pending`…`applied`) only in a slot
 * being rebuilt, after the documents the batch replaces were deleted and before their new states are inserted.
 * `marked` stands for `journalled` + `pending` in a rebuilt slot's write-out of new documents only (not journalled).
 */
export type CommitStep = 'reduced' | 'journalled' | 'pending' | 'marked' | 'cleared' | 'applied' | 'checkpointed';

/** Journal chunks stay well under the 16 MB BSON document limit. */
const CHUNK_BYTES = 4 * 1024 * 1024;

/**
 * Read models in MongoDB (or FerretDB): collections per slot, created with the definition's indexes; the slot's
 * checkpoint, the active slot per projection and retired collections in `read_model_state`.
 *
 * Exactly-once without multi-document transactions (FerretDB has none, a standalone MongoDB neither):
 * 1. the reducer runs against the committed documents (the batch's own writes overlaid), giving one final state
 *    per touched document, each stamped `_pos` = the position of the last event that wrote it;
 * 2. those writes are journalled (`read_model_journal`), then ONE conditional update of the checkpoint document
 *    (still at `expected`, no batch pending, same reset) records the batch as pending — the commit point;
 * 3. the writes are applied, each conditional on the stored `_pos` being lower (writeGuarded; in a slot being
 *    rebuilt, which no query reads yet, as one delete and one insert per collection: writeUnserved);
 * 4. the checkpoint moves to `next` and forgets the pending batch; the journal chunks are deleted.
 * A crash before 2 leaves the collections untouched (the batch is re-read and re-reduced from the same state); a
 * crash after 2 leaves a pending batch that the next commit on the slot finishes from the journal — the guard makes
 * re-applying a write a no-op, and the journal (not a re-reduction over half-written documents) is what is
 * re-applied, so reducers that read one document to write another stay exact. Queries may see a batch's documents
 * before its checkpoint moves, as with any asynchronous read model.
 *
 * A slot being rebuilt (created empty by this process, so its cache knows every document) buffers its batches and
 * runs steps 2–4 for many at once (BuildBuffer): each document is written once per write-out, in its latest state.
 * A write-out of new documents only is not journalled: a crash after its commit point is undone instead of finished
 * (insertUnjournalled, rollBack).
 *
 * Where the server has transactions (a MongoDB replica set or sharded cluster, detected at connect), steps 1–4
 * run in one transaction instead, without the journal: reads, guarded writes and the checkpoint move commit
 * together.
 */
export function createMongoReadModelStore(mongo: MongoDatabase, options: MongoReadModelStoreOptions = {}): ReadModelStore {
  return new MongoReadModelStore(mongo, options);
}

class MongoReadModelStore implements ReadModelStore {
  private readonly db: Db;
  private readonly grace: number;
  private readonly cacheLimit: number;
  private readonly flushLimits: BuildFlushLimits;
  private readonly caches = new Map<string, SlotCache>();
  /** Slots activate() is switching to serving: their batches are written at once, guarded, from then on. */
  private readonly switching = new Set<string>();
  /** Batches of slots being rebuilt, reduced and not yet written out. */
  private readonly builds = new Map<string, BuildBuffer>();
  /** Per slot, the commit (or write-out) running: one at a time, so activate() never meets a half-written batch. */
  private readonly queues = new SlotQueues();
  private dropTimer?: NodeJS.Timeout;
  /** Leases of these projections are this database's own, apart from those of the SQL read models. */
  readonly leaseScope: string;

  constructor(
    private readonly mongo: MongoDatabase,
    private readonly options: MongoReadModelStoreOptions,
  ) {
    this.db = mongo.db;
    this.leaseScope = `mongodb:${mongo.db.databaseName}`;
    this.grace = options.retireGraceMs ?? 10_000;
    this.cacheLimit = options.cacheDocuments ?? DEFAULT_SLOT_CACHE_DOCUMENTS;
    this.flushLimits = options.buildFlush ?? DEFAULT_BUILD_FLUSH;
  }

  /** The driver's "no server" errors (FerretDB or MongoDB restarting), and its backend's, are not poison events. */
  isUnavailable(e: unknown): boolean {
    return isMongoConnectionError(e);
  }

  private get bookkeeping() {
    return this.db.collection<SlotDoc | ActiveDoc | RetiredDoc>(READ_MODEL_STATE);
  }

  private get journal() {
    return this.db.collection<JournalChunk>(READ_MODEL_JOURNAL);
  }

  async init(): Promise<void> {
    for (const name of [READ_MODEL_STATE, READ_MODEL_JOURNAL]) {
      await this.db.createCollection(name).catch((e: { code?: number }) => {
        if (e.code !== 48) throw e;
      });
    }
    await this.journal.createIndex({ batch: 1 }, { name: 'batch' });
    await this.bookkeeping.createIndex({ kind: 1, name: 1 }, { name: 'kind_name' });
    // Journal chunks of batches that never became pending (a crash between journalling and the commit point).
    const pending = (await this.slotDocs()).flatMap((s) => (s.pending ? [s.pending.batch] : []));
    await this.journal.deleteMany({ batch: { $nin: pending } });
    await this.dropRetired();
  }

  tablesFor(slot: ProjectionSlot, logical: readonly string[]): ProjectionTables {
    return physicalTables(slot, logical);
  }

  async states(name?: string): Promise<SlotState[]> {
    const [slots, active] = await Promise.all([this.slotDocs(name), this.activeDocs(name)]);
    return slots.map((s) => toState(s, active));
  }

  async state(slot: ProjectionSlot): Promise<SlotState | null> {
    const [doc, active] = await Promise.all([this.slotDoc(slot), this.activeDocs(slot.name)]);
    return doc ? toState(doc, active) : null;
  }

  async activeSlot(name: string): Promise<ProjectionSlot | null> {
    const a = (await this.bookkeeping.findOne({ _id: activeId(name) })) as ActiveDoc | null;
    return a ? { name: a.name, version: a.version, generation: a.generation } : null;
  }

  async createSlot(def: ProjectionDefinition, slot: ProjectionSlot, status: ProjectionStatus): Promise<void> {
    const tables = this.tablesFor(slot, Object.keys(def.collections));
    // A slot created to be rebuilt serves only once activated: its serving indexes are built then, in bulk.
    const deferred = await createCollections(this.db, tables, def.collections, { deferServing: status === 'rebuilding' });
    const doc: SlotDoc = {
      _id: slotId(slot),
      kind: 'slot',
      ...slot,
      position: formatPosition(START),
      status,
      events_applied: 0,
      error: null,
      failed_event_id: null,
      failed_position: null,
      tables,
      resets: 0,
      pending: null,
      deferred_indexes: deferred,
      updated_at: new Date(),
    };
    await this.bookkeeping.insertOne(doc);
    this.caches.set(doc._id, new SlotCache(0, doc.position, true, this.cacheLimit));
  }

  async commitBatch(
    def: ProjectionDefinition,
    slot: ProjectionSlot,
    expected: GlobalPosition,
    next: GlobalPosition,
    events: readonly RecordedEvent[],
    fence?: LeaseFence,
  ): Promise<void> {
    if (this.mongo.capabilities.transactions) return this.commitInTransaction(def, slot, expected, next, events, fence);
    return this.queues.run(slotId(slot), () => this.commitJournalled({ def, slot, expected, next, events, fence }));
  }

  private async commitJournalled({ def, slot, expected, next, events, fence }: BatchToCommit): Promise<void> {
    const id = slotId(slot);
    let build = this.builds.get(id);
    // The worker started again from the stored checkpoint (a restart after a conflict): the buffer is redone.
    if (build && build.position !== formatPosition(expected)) {
      this.dropBuild(id);
      build = undefined;
    }
    const cp = build ? build.slot : await this.checkedSlot(slot, expected, undefined, fence);
    const cache = build ? build.cache : this.cacheFor(cp);
    let reduced: ReducedWrite[];
    try {
      // A slot nobody reads holds nothing above its checkpoint but what an undone write-out may have left.
      const notAbove = cp.status === 'rebuilding' ? documentsAbove(cp.position) : undefined;
      reduced = events.length ? await this.reduce(def, cp.tables, events, cache, undefined, notAbove) : [];
    } catch (e) {
      // A build's cache knows every document, so a failed reduction read and changed nothing in it: the buffer stands
      // (the worker replays the batch event by event to land the good prefix before the fault).
      if (!build) this.caches.delete(cp._id);
      throw e;
    }
    this.options.onStep?.('reduced');
    try {
      // Nobody reads a slot being rebuilt until activate() switches to it; from the moment activate() begins, its
      // batches are written at once, guarded (a build buffered before then is in the queue ahead of activate()'s
      // write-out, which writes it).
      const unserved = cp.status === 'rebuilding' && !this.switching.has(id);
      if (!build && unserved && cache.complete) this.builds.set(id, (build = new BuildBuffer(cp, cache)));
      if (build) {
        build.add(reduced, formatPosition(next), events.length, fence);
        // Written out when due, or when the cache forgot a collection (a reducer would then read the server).
        if (build.full(this.flushLimits) || !cache.complete) await this.writeOut(build);
      } else {
        const met = await this.persist(cp, reduced, formatPosition(next), events.length, fence, unserved);
        cache.committed(formatPosition(next), reduced);
        sawReplaced(cache, cp, met);
      }
    } catch (e) {
      this.dropBuild(id);
      throw e;
    }
    this.trimCaches(id);
  }

  /**
   * Drops the caches of other slots, least recently committed to first, while all of them together hold more than
   * one slot's budget: a rebuild of every read model one after another (the ops CLI) kept each finished model's
   * cache, and over a 1,000,000-event history ran out of heap on the fourth model (docs/benchmarks-journal.md). A slot whose
   * cache is dropped reads its documents from the server again; one being built keeps its cache (its buffer needs it).
   */
  private trimCaches(keep: string): void {
    let total = 0;
    for (const cache of this.caches.values()) total += cache.documents;
    for (const [id, cache] of this.caches) {
      if (total <= this.cacheLimit) return;
      if (id === keep || this.builds.has(id)) continue;
      this.caches.delete(id);
      total -= cache.documents;
    }
  }

  /**
   * Steps 2–4 of a commit (the class comment) for writes reduced from the checkpoint `cp`, ending at `next`. Returns
   * the collections where a write taken for a new document met a stored one (see writeGuarded).
   */
  private async persist(
    cp: SlotDoc,
    writes: readonly ReducedWrite[],
    next: string,
    applied: number,
    fence: LeaseFence | undefined,
    unserved: boolean,
  ): Promise<ReadonlySet<string>> {
    const slot = slotOf(cp);
    const casFilter = { _id: cp._id, position: cp.position, pending: null, resets: cp.resets, status: { $ne: 'faulted' }, ...fenceFilter(fence) };
    if (writes.length === 0) {
      const moved = await this.bookkeeping.updateOne(casFilter, {
        $set: { position: next, updated_at: new Date(), ...fenceSet(fence) },
        $inc: { events_applied: applied },
      });
      if (moved.matchedCount === 0) throw new CheckpointConflictError(slot, 'checkpoint moved during the batch');
      return new Set();
    }
    if (unserved && writes.every((w) => w.fresh) && (await this.insertUnjournalled(cp, casFilter, writes, next, applied, fence))) return new Set();
    const batch = randomUUID();
    // A batch is encoded once, for its journal and its writes; a build's write-out (a slot nobody reads) chunk by
    // chunk, for the journal and again as it is inserted: never all of its documents encoded at once.
    const encodedOnce = unserved ? undefined : writes.map((w) => w.stored());
    let chunks = 0;
    for (const c of chunk(batch, cp._id, encodedOnce ?? encoded(writes))) {
      await this.journal.insertOne(c);
      chunks++;
    }
    this.options.onStep?.('journalled');
    const pending = { batch, chunks, next, applied };
    const marked = await this.bookkeeping.updateOne(casFilter, { $set: { pending, updated_at: new Date(), ...fenceSet(fence) } });
    if (marked.matchedCount === 0) {
      await this.forget({ batch });
      throw new CheckpointConflictError(slot, 'checkpoint moved during the batch');
    }
    this.options.onStep?.('pending');
    return this.finish({ ...cp, pending }, encodedOnce ? { guarded: encodedOnce } : { unserved: writes });
  }

  /**
   * Steps 2–4 for a write-out of new documents only to a slot nobody reads (a rebuild's first write-out, and every
   * page of a collection only ever added to): no journal — at 1,000,000 events the journal was a quarter of such
   * write-outs (docs/benchmarks-journal.md) — since a crash is undone instead of finished: the pending mark records the
   * bound above which every document is this write-out's (PendingBatch.rollback_above; rollBack). False when an
   * insert met a stored document (a collection only taken to be added to): what was inserted is then deleted again
   * and the pending mark cleared, and the caller writes the batch journalled, with its guarded fallback.
   */
  private async insertUnjournalled(
    cp: SlotDoc,
    casFilter: Document,
    writes: readonly ReducedWrite[],
    next: string,
    applied: number,
    fence: LeaseFence | undefined,
  ): Promise<boolean> {
    const pending: PendingBatch = { batch: randomUUID(), chunks: 0, next, applied, rollback_above: documentsAbove(cp.position) };
    const marked = await this.bookkeeping.updateOne(casFilter, { $set: { pending, updated_at: new Date(), ...fenceSet(fence) } });
    if (marked.matchedCount === 0) throw new CheckpointConflictError(slotOf(cp), 'checkpoint moved during the batch');
    this.options.onStep?.('marked');
    if (!(await insertNew(this.db, writes))) {
      await this.rollBack({ ...cp, pending });
      return false;
    }
    this.options.onStep?.('applied');
    await this.checkpoint(cp, pending);
    return true;
  }

  /**
   * Undoes a write-out left pending without a journal (insertUnjournalled): deletes the slot's documents above its
   * bound, and clears the pending mark with the checkpoint where it was. A crashed process's insert still in flight
   * at the server could land after the delete; nobody reads the slot, its reducers take a document above the
   * checkpoint for absent (MongoDocumentSource `notAbove`), and the resumed build's insert meets it and goes
   * journalled and guarded.
   */
  private async rollBack(cp: SlotDoc): Promise<void> {
    const pending = cp.pending!;
    for (const collection of Object.values(cp.tables)) await this.db.collection(collection).deleteMany({ _pos: { $gt: pending.rollback_above } });
    await this.bookkeeping.updateOne({ _id: cp._id, 'pending.batch': pending.batch }, { $set: { pending: null, updated_at: new Date() } });
  }

  /** A batch found pending (after a crash, or a failed write): finished from its journal, or rolled back without one. */
  private async recover(cp: SlotDoc): Promise<string> {
    const pending = cp.pending!;
    if (pending.rollback_above === undefined) {
      await this.finish(cp);
      return `finished batch ${pending.batch} left pending by a crash; resume from ${pending.next}`;
    }
    await this.rollBack(cp);
    return `rolled back batch ${pending.batch} left pending by a crash; resume from ${cp.position}`;
  }

  /**
   * A build buffer's batches written as one batch; the checkpoint then stands where the buffer ended. Always from
   * the slot's queue and before its switch (commitJournalled, activate), so nobody reads the slot yet.
   */
  private async writeOut(build: BuildBuffer): Promise<void> {
    const { writes, events } = build.contents();
    const met = await this.persist(build.slot, writes, build.position, events, build.fence, true);
    sawReplaced(build.cache, build.slot, met);
    build.written({ ...build.slot, position: build.position, events_applied: build.slot.events_applied + events });
  }

  /** Forgets a slot's unwritten batches and what this process knew of it (the stored slot is behind both). */
  private dropBuild(id: string): void {
    this.builds.delete(id);
    this.caches.delete(id);
  }

  /**
   * This process's knowledge of the slot, if it still holds at the slot's checkpoint (else a fresh one). A slot at
   * START with no batch pending has no documents (every write is marked pending first, the checkpoint moves once it
   * is applied, and a write-out undone leaves nothing), so its fresh cache knows it in full: a rebuild resumed by another process
   * after a crash before its first write-out is buffered again instead of reading every document from the server.
   */
  private cacheFor(cp: SlotDoc): SlotCache {
    const known = this.caches.get(cp._id);
    if (known && known.resets === cp.resets && known.position === cp.position) {
      // The most recently used last (trimCaches drops from the front).
      this.caches.delete(cp._id);
      this.caches.set(cp._id, known);
      return known;
    }
    const empty = cp.position === formatPosition(START) && cp.pending === null;
    const fresh = new SlotCache(cp.resets, cp.position, empty, this.cacheLimit);
    this.caches.set(cp._id, fresh);
    return fresh;
  }

  /** Steps 3–4 for a pending batch (just marked, or found after a crash): apply, move the checkpoint, clean up. */
  private async finish(cp: SlotDoc, just?: { unserved: readonly ReducedWrite[] } | { guarded: readonly StoredWrite[] }): Promise<ReadonlySet<string>> {
    const pending = cp.pending!;
    // `just`: the writes of a batch marked pending just now, `unserved` if to a slot no query reads yet. A batch found
    // pending after a crash is finished guarded from its journal (it may be found by another process, or after the
    // switch).
    const met =
      just && 'unserved' in just
        ? await writeUnserved(this.db, just.unserved, () => this.options.onStep?.('cleared'))
        : await writeGuarded(this.db, just?.guarded ?? (await this.journalled(pending)), this.mongo.capabilities);
    this.options.onStep?.('applied');
    await this.checkpoint(cp, pending);
    await this.forget(pending);
    return met;
  }

  /** Step 4: the checkpoint moves past a pending batch whose writes are all applied. */
  private async checkpoint(cp: SlotDoc, pending: PendingBatch): Promise<void> {
    await this.bookkeeping.updateOne(
      { _id: cp._id, 'pending.batch': pending.batch },
      { $set: { position: pending.next, pending: null, updated_at: new Date() }, $inc: { events_applied: pending.applied } },
    );
    this.options.onStep?.('checkpointed');
  }

  /**
   * A pending batch's writes from its journal chunks, read with one query: FerretDB (1.24, PostgreSQL backend) runs
   * every filter, `_id` included, as a sequential scan, so one scan for the batch beats one per chunk.
   */
  private async journalled(pending: PendingBatch): Promise<StoredWrite[]> {
    const found = new Map((await this.journal.find({ batch: pending.batch }).toArray()).map((c) => [c._id, c]));
    const writes: StoredWrite[] = [];
    for (let i = 0; i < pending.chunks; i++) {
      const chunk = found.get(chunkId(pending.batch, i));
      if (!chunk) throw new Error(`journal of batch ${pending.batch} lacks chunk ${i} of ${pending.chunks}`);
      writes.push(...unpack(chunk));
    }
    return writes;
  }

  private async forget(pending: { batch: string }): Promise<void> {
    await this.journal.deleteMany({ batch: pending.batch });
  }

  private async commitInTransaction(
    def: ProjectionDefinition,
    slot: ProjectionSlot,
    expected: GlobalPosition,
    next: GlobalPosition,
    events: readonly RecordedEvent[],
    fence?: LeaseFence,
  ): Promise<void> {
    const session = this.mongo.client.startSession();
    try {
      await session.withTransaction(async () => {
        const cp = await this.checkedSlot(slot, expected, session, fence);
        // A fresh cache per attempt: withTransaction may retry, and an aborted attempt's reads must not linger.
        const cache = new SlotCache(cp.resets, cp.position, false, this.cacheLimit);
        const reduced = events.length ? await this.reduce(def, cp.tables, events, cache, session) : [];
        await writeGuarded(
          this.db,
          reduced.map((r) => r.stored()),
          this.mongo.capabilities,
          session,
        );
        const moved = await this.bookkeeping.updateOne(
          { _id: cp._id, position: cp.position, pending: null, resets: cp.resets, ...fenceFilter(fence) },
          { $set: { position: formatPosition(next), updated_at: new Date(), ...fenceSet(fence) }, $inc: { events_applied: events.length } },
          { session },
        );
        if (moved.matchedCount === 0) throw new CheckpointConflictError(slot, 'checkpoint moved during the batch');
      });
    } finally {
      await session.endSession();
    }
  }

  /** The slot's checkpoint if a batch from `expected` may commit; finishes a crashed batch first (then conflicts). */
  private async checkedSlot(slot: ProjectionSlot, expected: GlobalPosition, session?: ClientSession, fence?: LeaseFence): Promise<SlotDoc> {
    const cp = await this.slotDoc(slot, session);
    if (!cp) throw new CheckpointConflictError(slot, 'slot no longer exists (switched away or dropped)');
    if (fence && cp.fence_name === fence.name && (cp.fence ?? 0) > fence.token)
      throw new CheckpointConflictError(slot, `fenced: lease ${fence.name} token ${fence.token} < ${cp.fence}`);
    if (cp.pending) throw new CheckpointConflictError(slot, await this.recover(cp));
    if (cp.status === 'faulted') throw new CheckpointConflictError(slot, 'slot is faulted');
    if (cp.position !== formatPosition(expected)) throw new CheckpointConflictError(slot, `at ${cp.position}, expected ${formatPosition(expected)}`);
    return cp;
  }

  private async reduce(
    def: ProjectionDefinition,
    tables: ProjectionTables,
    events: readonly RecordedEvent[],
    cache: SlotCache,
    session?: ClientSession,
    notAbove?: string,
  ): Promise<ReducedWrite[]> {
    const byName = codecs(def.collections);
    const source = new MongoDocumentSource(this.db, tables, byName, cache, session, notAbove);
    const writes = await reduceBatch(source, def.collections, def.apply, events);
    // A collection only ever added to is inserted into even once forgotten (an insert that meets a stored document
    // falls back to a guarded replace, and the collection is then no longer taken for new documents).
    return writes.map((w) => new ReducedWrite(w, tables[w.collection]!, cache.takenForNew(w.collection, w.id), byName.get(w.collection)!));
  }

  async setStatus(slot: ProjectionSlot, status: ProjectionStatus, fault?: ProjectionFault | null): Promise<void> {
    const id = slotId(slot);
    // A build faulting on an event keeps the batches before it, as a slot written batch by batch does.
    const build = this.builds.get(id);
    if (build && status === 'faulted') await this.queues.run(id, () => this.writeOut(build)).finally(() => this.dropBuild(id));
    const set: Document = { status, updated_at: new Date() };
    if (fault !== undefined) {
      set.error = fault?.error ?? null;
      set.failed_event_id = fault?.eventId ?? null;
      set.failed_position = fault?.position ? formatPosition(fault.position) : null;
    }
    await this.bookkeeping.updateOne({ _id: slotId(slot) }, { $set: set });
  }

  /**
   * The switch is one document write (the projection's active document), which MongoDB applies atomically: a
   * query resolves collection names through it, so it reads either the old slot or the new one, never a mix.
   */
  async activate(slot: ProjectionSlot): Promise<ProjectionSlot | null> {
    const id = slotId(slot);
    // Before the slot serves, its buffered batches are written out, and no batch of it may be between deleting and
    // inserting documents (writeUnserved): batches from here are written at once, guarded, and the one in flight in
    // this process (the slot's builder, in the same queue) finishes first.
    this.switching.add(id);
    try {
      await this.queues.run(id, async () => {
        const build = this.builds.get(id);
        this.builds.delete(id);
        if (!build) return;
        try {
          await this.writeOut(build);
        } catch (e) {
          this.dropBuild(id);
          throw e;
        }
      });
      return await this.switchTo(slot);
    } finally {
      this.switching.delete(id);
    }
  }

  private async switchTo(slot: ProjectionSlot): Promise<ProjectionSlot | null> {
    let target = await this.slotDoc(slot);
    if (!target) throw new CheckpointConflictError(slot, 'cannot activate: slot does not exist');
    if (target.status === 'faulted') throw new CheckpointConflictError(slot, 'cannot activate: slot is faulted');
    if (target.pending) {
      // A batch that failed between its delete and insert would leave documents missing: finished first, guarded.
      // One not journalled is undone instead, which leaves the slot behind where its build reached: not switched to
      // (a conflict, on which the runner resumes the build and switches again).
      const undone = target.pending.rollback_above !== undefined;
      const said = await this.recover(target);
      if (undone) throw new CheckpointConflictError(slot, `cannot activate: ${said}`);
      target = (await this.slotDoc(slot)) ?? target;
    }
    // The serving indexes a slot built for a rebuild went without (createCollections), before it serves.
    if (target.deferred_indexes) {
      await createDeferredIndexes(this.db, target.deferred_indexes);
      await this.bookkeeping.updateOne({ _id: slotId(slot), resets: target.resets }, { $set: { deferred_indexes: null } });
    }
    const previous = await this.activeSlot(slot.name);
    const active: ActiveDoc = { _id: activeId(slot.name), kind: 'active', ...slot, switched_at: new Date() };
    await this.bookkeeping.replaceOne({ _id: active._id }, active, { upsert: true });
    await this.bookkeeping.updateOne({ _id: slotId(slot), status: 'rebuilding' }, { $set: { status: 'live', updated_at: new Date() } });
    return previous;
  }

  async dropSlot(slot: ProjectionSlot): Promise<void> {
    const active = await this.activeSlot(slot.name);
    if (active && active.version === slot.version && active.generation === slot.generation) {
      throw new Error(`refusing to drop ${slot.name} v${slot.version} g${slot.generation}: it serves`);
    }
    // The checkpoint first: a straggling batch of this slot then conflicts instead of writing.
    const cp = (await this.bookkeeping.findOneAndDelete({ _id: slotId(slot) })) as SlotDoc | null;
    this.dropBuild(slotId(slot));
    if (!cp) return;
    if (cp.pending) await this.forget(cp.pending);
    await this.retire(Object.values(cp.tables));
  }

  /**
   * Reset without a transaction: the empty collections are new ones (named with the reset count), so the old
   * documents stay intact until one conditional update points the checkpoint at the new collections at START;
   * a crash before it leaves the slot as it was, after it the old collections are merely retired.
   */
  async resetSlot(def: ProjectionDefinition, slot: ProjectionSlot): Promise<void> {
    const cp = await this.slotDoc(slot);
    if (!cp) throw new CheckpointConflictError(slot, 'cannot reset: slot does not exist');
    const resets = cp.resets + 1;
    const tables = Object.fromEntries(Object.keys(def.collections).map((t) => [t, physicalTableName(slot, `r${resets}_${t}`)]));
    const active = await this.activeSlot(slot.name);
    const serving = active !== null && active.version === slot.version && active.generation === slot.generation;
    const deferred = await createCollections(this.db, tables, def.collections, { deferServing: !serving });
    const reset = await this.bookkeeping.updateOne(
      { _id: cp._id, resets: cp.resets },
      {
        $set: {
          tables,
          resets,
          position: formatPosition(START),
          status: 'catching_up',
          events_applied: 0,
          error: null,
          failed_event_id: null,
          failed_position: null,
          pending: null,
          deferred_indexes: deferred,
          updated_at: new Date(),
        },
      },
    );
    if (reset.matchedCount === 0) throw new CheckpointConflictError(slot, 'reset concurrently');
    this.builds.delete(cp._id); // its batches were of the old collections
    this.caches.set(cp._id, new SlotCache(resets, formatPosition(START), true, this.cacheLimit));
    if (cp.pending) await this.forget(cp.pending);
    await this.retire(Object.values(cp.tables));
  }

  async documents(def: ProjectionDefinition, collection: string): Promise<Doc[]> {
    const codec = codecs(def.collections).get(collection);
    if (!codec) throw new Error(`${def.name} has no collection ${collection}`);
    const active = await this.activeSlot(def.name);
    const cp = active && (await this.slotDoc(active));
    if (!cp) return [];
    const stored = await this.db.collection(cp.tables[collection]!).find({}).sort(codec.keySort()).toArray();
    return stored.map((d) => codec.decode(d));
  }

  /** Collections no slot uses any more: dropped after the grace period (a timer here, or the next init). */
  private async retire(collections: readonly string[]): Promise<void> {
    const dropAfter = new Date(Date.now() + this.grace);
    for (const c of collections) {
      const doc: RetiredDoc = { _id: `retired:${c}`, kind: 'retired', collection: c, drop_after: dropAfter };
      await this.bookkeeping.replaceOne({ _id: doc._id }, doc, { upsert: true });
    }
    clearTimeout(this.dropTimer);
    this.dropTimer = setTimeout(() => void this.dropRetired().catch(() => undefined), this.grace);
    this.dropTimer.unref();
  }

  private async dropRetired(): Promise<void> {
    const due = (await this.bookkeeping.find({ kind: 'retired', drop_after: { $lte: new Date() } }).toArray()) as RetiredDoc[];
    for (const r of due) {
      await this.db
        .collection(r.collection)
        .drop()
        .catch(() => undefined); // already gone is fine
      await this.bookkeeping.deleteOne({ _id: r._id });
    }
  }

  private async slotDoc(slot: ProjectionSlot, session?: ClientSession): Promise<SlotDoc | null> {
    return (await this.bookkeeping.findOne({ _id: slotId(slot) }, { session })) as SlotDoc | null;
  }

  private async slotDocs(name?: string): Promise<SlotDoc[]> {
    const docs = await this.bookkeeping
      .find({ kind: 'slot', ...(name ? { name } : {}) })
      .sort({ name: 1, version: 1, generation: 1 })
      .toArray();
    return docs as SlotDoc[];
  }

  private async activeDocs(name?: string): Promise<ActiveDoc[]> {
    return (await this.bookkeeping.find({ kind: 'active', ...(name ? { name } : {}) }).toArray()) as ActiveDoc[];
  }
}

/** commitBatch's arguments. */
interface BatchToCommit {
  readonly def: ProjectionDefinition;
  readonly slot: ProjectionSlot;
  readonly expected: GlobalPosition;
  readonly next: GlobalPosition;
  readonly events: readonly RecordedEvent[];
  readonly fence: LeaseFence | undefined;
}

interface RetiredDoc {
  _id: string;
  kind: 'retired';
  collection: string;
  drop_after: Date;
}

function toState(s: SlotDoc, active: readonly ActiveDoc[]): SlotState {
  return {
    slot: { name: s.name, version: s.version, generation: s.generation },
    position: parsePosition(s.position),
    status: s.status,
    eventsApplied: s.events_applied,
    fault:
      s.error === null ? null : { error: s.error, eventId: s.failed_event_id, position: s.failed_position === null ? null : parsePosition(s.failed_position) },
    tables: Object.freeze({ ...s.tables }),
    active: active.some((a) => a.name === s.name && a.version === s.version && a.generation === s.generation),
    updatedAt: s.updated_at,
  };
}

const slotOf = (cp: SlotDoc): ProjectionSlot => ({ name: cp.name, version: cp.version, generation: cp.generation });

/** The `_pos` bound above which every document was written after the checkpoint `position` ('' for START). */
function documentsAbove(position: string): string {
  return position === formatPosition(START) ? '' : encodePosition(parsePosition(position));
}

/** Splits a batch's writes into journal chunks under CHUNK_BYTES each, each packed as one binary value. */
function* chunk(batch: string, slot: string, writes: Iterable<StoredWrite>): Generator<JournalChunk> {
  let n = 0;
  let current: StoredWrite[] = [];
  let bytes = 0;
  const packed = (): JournalChunk => {
    const c = { _id: chunkId(batch, n++), batch, slot, packed: new Binary(BSON.serialize({ w: current })) };
    current = [];
    bytes = 0;
    return c;
  };
  for (const w of writes) {
    const size = BSON.calculateObjectSize(w);
    if (bytes + size > CHUNK_BYTES && current.length) yield packed();
    current.push(w);
    bytes += size;
  }
  if (current.length) yield packed();
}

function* encoded(writes: readonly ReducedWrite[]): Generator<StoredWrite> {
  for (const w of writes) yield w.stored();
}

/** Tells the cache which collections' writes met stored documents (physical names back to the slot's logical ones). */
function sawReplaced(cache: SlotCache, cp: SlotDoc, met: ReadonlySet<string>): void {
  if (met.size === 0) return;
  for (const [logical, physical] of Object.entries(cp.tables)) if (met.has(physical)) cache.sawReplaced(logical);
}

/** A journal chunk's writes, packed or (chunks journalled before packing) as plain documents. */
function unpack(chunk: JournalChunk): StoredWrite[] {
  if (chunk.packed) return (BSON.deserialize(chunk.packed.buffer.subarray(0, chunk.packed.length())) as { w: StoredWrite[] }).w;
  if (chunk.writes) return chunk.writes;
  throw new Error(`journal chunk ${chunk._id} holds no writes`);
}

/**
 * MongoDB has no transaction shared with the lease row (PostgreSQL), so the fence lives on the checkpoint: every
 * commit point (the conditional checkpoint update) requires the stored token to be at most the committer's and
 * raises it to the committer's. A new owner claims the checkpoint with an empty commit when it starts, so the
 * previous owner's next commit point fails. (FerretDB's conditional updates are not atomic under concurrency: run
 * one projector there.)
 *
 * Tokens count per lease name, so the stored token is compared only with the same lease's: a checkpoint fenced
 * under another name (the unscoped `projection:<name>` before leases were named per store) is taken over by the
 * first commit under the new name, which then fences it.
 */
const fenceFilter = (fence?: LeaseFence) =>
  fence ? { $or: [{ fence: { $exists: false } }, { fence: null }, { fence_name: { $ne: fence.name } }, { fence: { $lte: fence.token } }] } : {};
const fenceSet = (fence?: LeaseFence) => (fence ? { fence: fence.token, fence_name: fence.name } : {});
