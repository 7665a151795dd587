import { LeaseLostError, assertLeaseHeld, boundFencedTransaction, type LeaseFence } from '@dob/leases';
import { migrateSchema, type SqlDatabase, type SqlExecutor } from '@dob/sql';
import { START, positionFromString as parsePosition, positionToString as formatPosition, type GlobalPosition, type RecordedEvent } from '@dob/event-store';
import { reduceBatch, type DocumentWrite } from '../documents/batch-state';
import { CachedDocumentSource } from '../documents/cached-source';
import { PREFETCH_MIN_EVENTS, prefetchingSource, type BulkDocumentSource } from '../documents/prefetch';
import { DEFAULT_SLOT_CACHE_DOCUMENTS, SlotCache } from '../documents/slot-cache';
import { documentId, type Doc } from '../documents/collections';
import {
  isSqlProjection,
  slotKey,
  type ProjectionDefinition,
  type ProjectionSlot,
  type ProjectionStatus,
  type ProjectionTables,
  type SqlProjectionDefinition,
} from '../projection';
import { CheckpointConflictError, type ProjectionFault, type ReadModelStore, type ReducedBatch, type SlotState } from '../read-model-store.port';
import { physicalTables, readModelView } from './read-model-names';
import { SlotQueues } from '../documents/slot-queues';
import { BEHIND_BUILD, BuildReadsStore, DEFAULT_SQL_BUILD_LIMITS, SqlBuild, type SqlBuildLimits } from './sql-build';
import { SqlDocumentSource, countUpTo, createTablesSql, readAllDocuments, servingIndexesSql, writeDocuments, type WritePlan } from './sql-collections';

/**
 * The lease (name and token) each checkpoint's last move was committed under, NULL if unfenced: who wrote the
 * checkpoint, so a write by an owner that had lost its lease can be seen afterwards (MongoDB keeps the same on its
 * checkpoints). A migration run once (ALTER TABLE locks the table even when the columns exist).
 */
const CHECKPOINT_FENCE = `ALTER TABLE projection_checkpoints ADD COLUMN IF NOT EXISTS fence_name text, ADD COLUMN IF NOT EXISTS fence_token int8`;

/**
 * The CREATE INDEX statements a slot still owes before it may serve (servingIndexesSql), NULL when it has every
 * index: a slot created to be built gets its serving indexes in bulk at activate() instead of row by row.
 */
const PENDING_INDEXES = `ALTER TABLE projection_checkpoints ADD COLUMN IF NOT EXISTS pending_indexes jsonb`;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS projection_checkpoints (
  name            text        NOT NULL,
  version         int         NOT NULL,
  generation      int         NOT NULL,
  position        text        NOT NULL,
  status          text        NOT NULL CHECK (status IN ('catching_up', 'live', 'faulted', 'rebuilding')),
  events_applied  int8        NOT NULL DEFAULT 0,
  error           text,
  failed_event_id text,
  failed_position text,
  tables          jsonb       NOT NULL,
  updated_at      timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (name, version, generation)
);
CREATE TABLE IF NOT EXISTS projection_active (
  name        text        PRIMARY KEY,
  version     int         NOT NULL,
  generation  int         NOT NULL,
  switched_at timestamptz NOT NULL DEFAULT now()
);`;

interface CheckpointRow {
  name: string;
  version: number;
  generation: number;
  position: string;
  status: ProjectionStatus;
  events_applied: string;
  error: string | null;
  failed_event_id: string | null;
  failed_position: string | null;
  tables: Record<string, string>;
  updated_at: Date;
  active: boolean;
}

const SELECT_STATES = `
  SELECT c.*, (a.name IS NOT NULL) AS active
    FROM projection_checkpoints c
    LEFT JOIN projection_active a ON a.name = c.name AND a.version = c.version AND a.generation = c.generation`;

const toState = (r: CheckpointRow): SlotState => ({
  slot: { name: r.name, version: r.version, generation: r.generation },
  position: parsePosition(r.position),
  status: r.status,
  eventsApplied: Number(r.events_applied),
  fault:
    r.error === null
      ? null
      : {
          error: r.error,
          eventId: r.failed_event_id,
          position: r.failed_position === null ? null : parsePosition(r.failed_position),
        },
  tables: Object.freeze({ ...r.tables }),
  active: r.active,
  updatedAt: new Date(r.updated_at),
});

const slotParams = (s: ProjectionSlot) => [s.name, s.version, s.generation];
const WHERE_SLOT = 'name = $1 AND version = $2 AND generation = $3';

// Advisory-lock keys serialise init and switches across processes (PostgreSQL); on PGlite they are trivially free.
const lockKey = (what: string) => `SELECT pg_advisory_xact_lock(hashtext('${what}'))`;

/**
 * NOTIFY channel signalled in every transaction that changes what read models serve (a batch applied, views
 * re-pointed, a slot reset); PostgreSQL delivers it at COMMIT. Readers that cache query results listen on it.
 */
export const READ_MODELS_CHANGED_CHANNEL = 'read_models_changed';
const notifyChanged = (tx: SqlExecutor, name: string) => tx.query('SELECT pg_notify($1, $2)', [READ_MODELS_CHANGED_CHANNEL, name]);

/**
 * Read models in SQL (PGlite or PostgreSQL through libs/sql): tables per slot generated from the definitions'
 * collections, stable views, checkpoints beside; a batch's rows and its checkpoint commit in one transaction.
 */
export function createSqlReadModelStore<D extends AnySqlDefinition = ProjectionDefinition>(
  db: SqlDatabase,
  options: SqlReadModelStoreOptions = {},
): ReadModelStore<D> {
  return new SqlReadModelStore(db, options.cacheDocuments ?? DEFAULT_SLOT_CACHE_DOCUMENTS, options.buildLimits ?? DEFAULT_SQL_BUILD_LIMITS);
}

export interface SqlReadModelStoreOptions {
  /**
   * Documents the cache of a slot working through a backlog may hold (SlotCache; issue 33): past it whole
   * collections are forgotten, those no reducer reads first. Default DEFAULT_SLOT_CACHE_DOCUMENTS.
   */
  readonly cacheDocuments?: number;
  /** How often a slot being rebuilt writes its buffered batches out (SqlBuild). Default DEFAULT_SQL_BUILD_LIMITS. */
  readonly buildLimits?: SqlBuildLimits;
}

/** Read-model projections (documents) and SQL-transactional ones (the webhook fan-out) run side by side here. */
export type AnySqlDefinition = ProjectionDefinition | SqlProjectionDefinition;

const logicalTables = (def: AnySqlDefinition): string[] => (isSqlProjection(def) ? [...def.tables] : Object.keys(def.collections));

/**
 * Creates a slot's tables; returns the index statements it left for activate() (JSON for `pending_indexes`), or
 * null. Only a slot that does not serve yet leaves any: one that serves needs every index from its first row.
 */
async function createTables(tx: SqlExecutor, def: AnySqlDefinition, tables: ProjectionTables, serving: boolean): Promise<string | null> {
  if (isSqlProjection(def)) {
    await def.setup(tx, tables);
    return null;
  }
  await tx.exec(createTablesSql(tables, def.collections, { deferServing: !serving }));
  const pending = serving ? [] : servingIndexesSql(tables, def.collections);
  return pending.length ? JSON.stringify(pending) : null;
}

/** Applies a batch in `tx`; a document projection's writes are returned, to be remembered once committed. */
async function applyBatch(
  tx: SqlExecutor,
  def: AnySqlDefinition,
  tables: ProjectionTables,
  events: readonly RecordedEvent[],
  cache: SlotCache | undefined,
  reduced: SqlReducedBatch | undefined,
): Promise<DocumentWrite[]> {
  if (isSqlProjection(def)) {
    await def.apply(tx, events, tables);
    return [];
  }
  if (reduced) {
    await writeDocuments(tx, tables, def.collections, reduced.writes, reduced.plan);
    return reduced.writes;
  }
  const stored = new SqlDocumentSource(tx, tables, def.collections);
  const writes = await reduceThrough(cache ? new CachedDocumentSource(stored, cache, def.collections) : stored, def, events);
  await writeDocuments(tx, tables, def.collections, writes, cache && writePlan(cache, writes));
  return writes;
}

/** A batch reduced through `source` (its reads predicted first when the source cannot answer them from memory). */
async function reduceThrough(source: BulkDocumentSource, def: ProjectionDefinition, events: readonly RecordedEvent[]): Promise<DocumentWrite[]> {
  return reduceBatch(await prefetchingSource(source, def.collections, def.apply, events), def.collections, def.apply, events);
}

/** The checkpoint row of `slot`, locked (a second runner, a reset or a drop waits for us); a conflict unless at `expected`. */
async function lockedCheckpoint(
  tx: SqlExecutor,
  slot: ProjectionSlot,
  expected: string,
): Promise<{ status: ProjectionStatus; tables: Record<string, string> }> {
  const { rows } = await tx.query<{ position: string; status: ProjectionStatus; tables: Record<string, string> }>(
    `SELECT position, status, tables FROM projection_checkpoints WHERE ${WHERE_SLOT} FOR UPDATE`,
    slotParams(slot),
  );
  const row = rows[0];
  if (!row) throw new CheckpointConflictError(slot, 'slot no longer exists (switched away or dropped)');
  if (row.status === 'faulted') throw new CheckpointConflictError(slot, 'slot is faulted');
  if (row.position !== expected) throw new CheckpointConflictError(slot, `at ${row.position}, expected ${expected}`);
  return row;
}

/** Moves the checkpoint (the last statement of a batch): the lease checked first, so its row is share-locked only
 *  for the move and COMMIT. */
async function moveCheckpoint(tx: SqlExecutor, slot: ProjectionSlot, next: string, applied: number, fence: LeaseFence | undefined): Promise<void> {
  if (fence) await assertLeaseHeld(tx, fence).catch(fencedOut(slot));
  await tx.query(
    `UPDATE projection_checkpoints SET position = $4, events_applied = events_applied + $5, updated_at = now(),
          fence_name = $6, fence_token = $7
    WHERE ${WHERE_SLOT}`,
    [...slotParams(slot), next, applied, fence?.name ?? null, fence?.token ?? null],
  );
}

/**
 * How a batch's writes go in, as `cache` knows the slot before the batch: documents it knows absent are new rows,
 * and a collection it no longer knows in full is tried as new rows while every write of it has been one.
 */
function writePlan(cache: SlotCache, writes: readonly DocumentWrite[]): WritePlan {
  const fresh = new Set<DocumentWrite>();
  const tryNew = new Set<string>();
  for (const w of writes) {
    if (cache.knownAbsent(w.collection, w.id)) fresh.add(w);
    else if (!cache.knowsAll(w.collection) && cache.writesOnlyNew(w.collection)) tryNew.add(w.collection);
  }
  return { fresh, tryNew, replaced: (collection) => cache.sawReplaced(collection) };
}

/**
 * A batch this large is a backlog's page (a catch-up after a stop, a build resumed after a crash), never a live one
 * (those are at most the runner's batchSize, 500): the slot's cache is then started with its small collections loaded.
 */
const PRELOAD_MIN_EVENTS = 1000;

/**
 * Documents a backlog's cache loads at most: collections are taken smallest first while they fit. Loading 100,000 rows
 * costs a fraction of a second, and a catch-up then reads nothing back for them and predicts no reads (a collection
 * known in full answers every read, and one nobody reads is not needed).
 */
const PRELOAD_DOCUMENTS = 100_000;

/** Loads into `cache` (as of the batch's checkpoint, inside its transaction) the collections that fit `budget`. */
async function preload(tx: SqlExecutor, def: ProjectionDefinition, tables: ProjectionTables, cache: SlotCache, budget: number): Promise<void> {
  const sizes: { collection: string; n: number }[] = [];
  for (const collection of Object.keys(def.collections)) {
    const n = await countUpTo(tx, tables[collection]!, budget);
    if (n !== undefined) sizes.push({ collection, n });
  }
  let left = budget;
  for (const { collection, n } of sizes.sort((a, b) => a.n - b.n)) {
    if (n > left) break;
    const spec = def.collections[collection]!;
    const docs = await readAllDocuments(tx, tables[collection]!, spec);
    cache.load(
      collection,
      docs.map((d) => [documentId(spec, d), d] as const),
    );
    left -= n;
  }
}

/** A commitBatch call, positions formatted. */
interface BatchToCommit {
  readonly def: AnySqlDefinition;
  readonly slot: ProjectionSlot;
  readonly expected: string;
  readonly next: string;
  readonly events: readonly RecordedEvent[];
  readonly fence: LeaseFence | undefined;
  readonly reducedAhead: ReducedBatch | undefined;
}

/** A batch reduced ahead from a slot cache, with that cache already holding its writes. */
interface SqlReducedBatch extends ReducedBatch {
  readonly cache: SlotCache;
  readonly writes: DocumentWrite[];
  /** How its writes go in (writePlan, taken before the cache held the batch). */
  readonly plan: WritePlan;
}

/** The store behind a cache known in full: never asked (a reducer reading it would be a bug in SlotCache). */
const NOTHING_STORED: BulkDocumentSource = {
  get: () => Promise.reject(new Error('slot cache known in full was bypassed')),
  find: () => Promise.reject(new Error('slot cache known in full was bypassed')),
  getMany: () => Promise.reject(new Error('slot cache known in full was bypassed')),
  findMany: () => Promise.reject(new Error('slot cache known in full was bypassed')),
};

class SqlReadModelStore implements ReadModelStore<AnySqlDefinition> {
  /**
   * Per slot, what this process knows of its documents at its checkpoint — kept only while a slot works through a
   * backlog (a rebuild, a catch-up): from a slot created or reset empty here it knows every document, so a rebuild
   * reads nothing back. Dropped once the slot is live: a following slot's small batches read the store as before,
   * and a long-running process holds no copy of its read models.
   */
  private readonly caches = new Map<string, SlotCache>();
  /** Per slot being rebuilt here, its batches not written yet (SqlBuild); run on the slot's queue. */
  private readonly builds = new Map<string, SqlBuild>();
  /** Per slot, the last of its builds' write-outs still committing (writeOut). */
  private readonly writingOut = new Map<string, Promise<void>>();
  /**
   * Slots whose activate() is under way here: no build starts for them, and one that exists is written out at once.
   * Once switched, a slot is a serving slot like any other, whose backlog (a catch-up) may be built again: a process
   * that activated its slots on its first start once caught every later backlog up page by page, with every index.
   */
  private readonly activated = new Set<string>();
  /** Caches whose build saved no writes (SqlBuild.saving): their slot's batches go in directly from then on. */
  private readonly unbuffered = new WeakSet<SlotCache>();
  private readonly queues = new SlotQueues();

  constructor(
    private readonly db: SqlDatabase,
    private readonly cacheLimit: number,
    private readonly buildLimits: SqlBuildLimits,
  ) {}

  /**
   * libs/sql turns a lost connection into AppError SERVICE_UNAVAILABLE (checked by its code, so this lib needs no
   * domain import): not a poison event, even when the server is back in time for the fault to be recorded.
   */
  isUnavailable(e: unknown): boolean {
    return (e as { code?: unknown } | null)?.code === 'SERVICE_UNAVAILABLE';
  }

  async init(): Promise<void> {
    await this.db.transaction(async (tx) => {
      await tx.query(lockKey('projection_init'));
      await tx.exec(SCHEMA);
      await migrateSchema(tx, 'dob.projections.checkpoint-fence', CHECKPOINT_FENCE);
      await migrateSchema(tx, 'dob.projections.pending-indexes', PENDING_INDEXES);
    });
  }

  tablesFor(slot: ProjectionSlot, logical: readonly string[]): ProjectionTables {
    return physicalTables(slot, logical);
  }

  async states(name?: string): Promise<SlotState[]> {
    const { rows } = name
      ? await this.db.query<CheckpointRow>(`${SELECT_STATES} WHERE c.name = $1 ORDER BY c.version, c.generation`, [name])
      : await this.db.query<CheckpointRow>(`${SELECT_STATES} ORDER BY c.name, c.version, c.generation`);
    return rows.map(toState);
  }

  async state(slot: ProjectionSlot): Promise<SlotState | null> {
    const { rows } = await this.db.query<CheckpointRow>(`${SELECT_STATES} WHERE c.name = $1 AND c.version = $2 AND c.generation = $3`, slotParams(slot));
    return rows[0] ? toState(rows[0]) : null;
  }

  async activeSlot(name: string): Promise<ProjectionSlot | null> {
    const { rows } = await this.db.query<ProjectionSlot>('SELECT name, version, generation FROM projection_active WHERE name = $1', [name]);
    return rows[0] ?? null;
  }

  async createSlot(def: AnySqlDefinition, slot: ProjectionSlot, status: ProjectionStatus): Promise<void> {
    const tables = this.tablesFor(slot, logicalTables(def));
    await this.db.transaction(async (tx) => {
      // A slot created to be rebuilt serves only once activated; the first slot of a projection serves at once.
      const pending = await createTables(tx, def, tables, status !== 'rebuilding');
      await tx.query(
        `INSERT INTO projection_checkpoints (name, version, generation, position, status, tables, pending_indexes)
         VALUES ($1, $2, $3, $4, $5, $6, $7)`,
        [...slotParams(slot), formatPosition(START), status, JSON.stringify(tables), pending],
      );
    });
    if (!isSqlProjection(def)) this.caches.set(slotKey(slot), new SlotCache(0, formatPosition(START), true, this.cacheLimit));
  }

  /** The slot's cache if it still holds at `position`; else, for a batch large enough to be a backlog's, a new one. */
  private async cacheFor(tx: SqlExecutor, def: AnySqlDefinition, slot: ProjectionSlot, tables: ProjectionTables, position: string, events: number) {
    if (isSqlProjection(def)) return undefined;
    const key = slotKey(slot);
    const known = this.caches.get(key);
    if (known?.position === position) return known;
    this.caches.delete(key);
    if (position === formatPosition(START)) {
      // A slot at START has no rows (a batch's rows commit with its checkpoint's move): known in full, as if created
      // here — a build resumed by another process after a crash before its first write-out reads nothing back.
      const empty = new SlotCache(0, position, true, this.cacheLimit);
      this.caches.set(key, empty);
      return empty;
    }
    if (events < PREFETCH_MIN_EVENTS) return undefined;
    const backlog = events >= PRELOAD_MIN_EVENTS;
    const fresh = new SlotCache(0, position, false, this.cacheLimit, backlog);
    if (backlog) await preload(tx, def, tables, fresh, Math.min(PRELOAD_DOCUMENTS, this.cacheLimit));
    this.caches.set(key, fresh);
    return fresh;
  }

  async commitBatch(
    def: AnySqlDefinition,
    slot: ProjectionSlot,
    expected: GlobalPosition,
    next: GlobalPosition,
    events: readonly RecordedEvent[],
    fence?: LeaseFence,
    reducedAhead?: ReducedBatch,
  ): Promise<void> {
    const batch: BatchToCommit = { def, slot, expected: formatPosition(expected), next: formatPosition(next), events, fence, reducedAhead };
    const key = slotKey(slot);
    if (this.builds.has(key) && !isSqlProjection(def)) return this.queues.run(key, () => this.commitToBuild(key, { ...batch, def }));
    return this.commitDirect(batch);
  }

  /** A batch written in its own transaction with the checkpoint's move; a slot being rebuilt may start a build after. */
  private async commitDirect({ def, slot, expected, next, events, fence, reducedAhead }: BatchToCommit): Promise<void> {
    const key = slotKey(slot);
    await this.writtenOut(key);
    let cache: SlotCache | undefined;
    let writes: DocumentWrite[] = [];
    let checkpoint!: { status: ProjectionStatus; tables: Record<string, string> };
    // Reduced ahead from the slot's cache: written as reduced while that cache still stands for the slot (and the
    // checkpoint is where it was reduced from, checked below); otherwise reduced again here.
    const reduced = reducedAhead as SqlReducedBatch | undefined;
    const ahead = reduced && this.caches.get(key) === reduced.cache ? reduced : undefined;
    await this.db
      .transaction(async (tx) => {
        if (fence) await boundFencedTransaction(tx, fence);
        checkpoint = await lockedCheckpoint(tx, slot, expected);
        if (!ahead) cache = await this.cacheFor(tx, def, slot, checkpoint.tables, expected, events.length);
        if (events.length) {
          writes = await applyBatch(tx, def, checkpoint.tables, events, cache, ahead);
          await notifyChanged(tx, slot.name);
        }
        await moveCheckpoint(tx, slot, next, events.length, fence);
      })
      .catch((e: unknown) => {
        this.caches.delete(key); // what it learned in a batch that did not commit may not hold
        throw e;
      });
    cache?.committed(
      next,
      writes.map((write) => ({ write })),
    );
    const known = ahead?.cache ?? cache;
    // A rebuild, or a serving slot's backlog (a catch-up after a stop: its pages are far larger than a live batch).
    const serving = checkpoint.status !== 'rebuilding';
    const backlog = !serving || events.length >= PRELOAD_MIN_EVENTS;
    if (backlog && known && !isSqlProjection(def) && !this.activated.has(key) && this.caches.get(key) === known) {
      // Known in full where reducers read, so the next batches need nothing stored: they wait in a build.
      if (known.readsComplete && !known.overBudget && !this.unbuffered.has(known)) {
        this.builds.set(key, new SqlBuild(slot, checkpoint.tables, def.collections, known, next, serving));
      }
    }
  }

  /**
   * A batch of a slot being rebuilt into its build (on the slot's queue): reduced from the cache alone, held there,
   * written out when due. Falls back to a direct commit when the build no longer stands for the worker's position
   * (a restarted worker), or when a reducer reads what only the stored slot knows (the build is written out first).
   */
  private async commitToBuild(key: string, batch: BatchToCommit & { def: ProjectionDefinition }): Promise<void> {
    const { def, expected, next, events, fence } = batch;
    const build = this.builds.get(key);
    if (!build || build.position !== expected || this.caches.get(key) !== build.cache) {
      this.dropBuild(key);
      return this.commitDirect(batch);
    }
    const reduced = batch.reducedAhead as SqlReducedBatch | undefined;
    let writes: DocumentWrite[];
    let plan: WritePlan;
    if (reduced && reduced.cache === build.cache) ({ writes, plan } = reduced);
    else {
      if (build.cache.position !== expected) {
        this.dropBuild(key); // the cache holds a batch reduced ahead that never came: it is past the worker
        return this.commitDirect(batch);
      }
      try {
        writes = await reduceThrough(new CachedDocumentSource(BEHIND_BUILD, build.cache, def.collections), def, events);
      } catch (e) {
        if (!(e instanceof BuildReadsStore)) throw e; // a poison event: nothing was read into the cache, the build stands
        await this.writeOut(key, build);
        return this.commitDirect(batch);
      }
      plan = writePlan(build.cache, writes);
      build.cache.heldAhead(
        next,
        writes.map((write) => ({ write })),
      );
    }
    build.add(writes, plan, next, events.length, fence);
    // Past its budget the cache must forget, which it does only at a direct commit; switching, the slot must be stored.
    const due = build.due(this.buildLimits);
    if (due && !build.saving(this.buildLimits.minSaving)) this.unbuffered.add(build.cache);
    // A serving slot's build ends with its backlog: at a live-sized batch (or at caughtUp, whichever comes first).
    const live = build.serving && events.length < PRELOAD_MIN_EVENTS;
    const ending = build.cache.overBudget || this.activated.has(key) || this.unbuffered.has(build.cache) || live;
    if (ending) await this.writeOut(key, build);
    else if (due) {
      // One write-out commits while the next builds, never more: a stalled database holds back the reducers (and the
      // memory of every build taken) instead of letting them run to the end of the history ahead of it.
      await this.writtenOut(key);
      this.writeOutBehind(key, build);
    }
  }

  /**
   * A build's batches written as one, with the checkpoint's move to where they end. The buffer is emptied at once
   * and the transaction runs behind whatever the slot does next: the next batches reduce from the cache (which
   * holds the write-out's documents) while PostgreSQL commits it — at 1,000,000 events the rebuilding process
   * otherwise sat idle through 18 s of write-outs (docs/benchmarks-journal.md). Write-outs of a slot commit one after
   * another; anything that needs the stored slot (a direct commit, the switch, a status, a drop or reset) first
   * waits for them (writtenOut). One that fails drops the build and the cache (the stored slot is behind both); the
   * slot's next operation here then fails with its error, and the worker resumes from the stored checkpoint.
   */
  private writeOutBehind(key: string, build: SqlBuild): void {
    const { writes, plan, events, from, to, fence } = build.take();
    const before = this.writingOut.get(key);
    const committed = (async () => {
      await before;
      await this.db.transaction(async (tx) => {
        if (fence) await boundFencedTransaction(tx, fence);
        await lockedCheckpoint(tx, build.slot, from);
        if (writes.length) {
          await writeDocuments(tx, build.tables, build.collections, writes, plan);
          await notifyChanged(tx, build.slot.name);
        }
        await moveCheckpoint(tx, build.slot, to, events, fence);
      });
    })();
    const tracked: Promise<void> = committed.then(
      () => {
        if (this.writingOut.get(key) === tracked) this.writingOut.delete(key);
      },
      (e: unknown) => {
        this.dropBuild(key);
        throw e;
      },
    );
    tracked.catch(() => undefined); // a write-out nobody awaits fails the slot's next operation instead (writtenOut)
    this.writingOut.set(key, tracked);
  }

  /**
   * A build that ends (its slot switches, faults, goes live or over budget), forgotten and its write-out waited for:
   * its failure, or that of one before it, reaches this caller alone — the slot's next operation then finds the
   * stored checkpoint behind it (a conflict: the worker resumes from there), not the same error again.
   */
  private writeOut(key: string, build: SqlBuild): Promise<void> {
    this.builds.delete(key);
    this.writeOutBehind(key, build);
    return this.writtenOut(key);
  }

  /** Waits for the slot's write-outs still committing; the first caller after one failed gets its error. */
  private async writtenOut(key: string): Promise<void> {
    const pending = this.writingOut.get(key);
    if (!pending) return;
    try {
      await pending;
    } finally {
      if (this.writingOut.get(key) === pending) this.writingOut.delete(key);
    }
  }

  /** Forgets a build's unwritten batches and what this process knew of the slot (the stored slot is behind both). */
  private dropBuild(key: string): void {
    this.builds.delete(key);
    this.caches.delete(key);
  }

  async reduceAhead(
    def: AnySqlDefinition,
    slot: ProjectionSlot,
    expected: GlobalPosition,
    next: GlobalPosition,
    events: readonly RecordedEvent[],
  ): Promise<ReducedBatch | undefined> {
    const cache = this.caches.get(slotKey(slot));
    if (isSqlProjection(def) || !cache || cache.position !== formatPosition(expected) || events.length === 0) return undefined;
    // Past its budget the cache forgets at the next commit (SlotCache.heldAhead): that batch reduces in its transaction.
    if (cache.overBudget) return undefined;
    // Outside any transaction: the committed tables are at `expected` or, if the batch before is still committing,
    // one batch behind it — whose every write the cache holds (it was reduced ahead too) and answers first. Behind a
    // build they are further behind, so nothing may be read from them (the commit then writes the build out).
    const stored = this.builds.has(slotKey(slot))
      ? BEHIND_BUILD
      : cache.complete
        ? NOTHING_STORED
        : new SqlDocumentSource(this.db, this.tablesFor(slot, Object.keys(def.collections)), def.collections);
    const writes = await reduceThrough(new CachedDocumentSource(stored, cache, def.collections), def, events);
    if (this.caches.get(slotKey(slot)) !== cache || cache.position !== formatPosition(expected)) return undefined; // dropped meanwhile
    const plan = writePlan(cache, writes);
    // Held from now, before it commits, so the next batch reduces on top of it; if this batch does not commit,
    // commitBatch drops the cache (and with it every batch reduced from it).
    cache.heldAhead(
      formatPosition(next),
      writes.map((write) => ({ write })),
    );
    const batch: SqlReducedBatch = { reducedAhead: true, cache, writes, plan };
    return batch;
  }

  /**
   * A serving slot's build written out once its worker has caught up: it follows live from here, and what it
   * applied must show (a rebuild's build waits for its switch instead).
   */
  async caughtUp(slot: ProjectionSlot): Promise<void> {
    const key = slotKey(slot);
    await this.queues.run(key, async () => {
      const build = this.builds.get(key);
      // A rebuild's build waits for its switch. With no build left, a write-out that failed behind the last pages
      // (which dropped the build they waited in) must still be told: no batch came after it to fail on it, and the
      // worker would follow live with the stored slot a whole write-out behind it, reported caught up.
      if (!build || build.serving) await this.storedAsBuilt(slot, key, build);
    });
  }

  /**
   * The slot's build (if any) written out and every write-out of it committed. One that failed leaves the stored slot
   * behind where this process's worker got: a conflict, on which the worker (or the build) resumes from there.
   */
  private async storedAsBuilt(slot: ProjectionSlot, key: string, build: SqlBuild | undefined): Promise<void> {
    try {
      if (build) await this.writeOut(key, build);
      else await this.writtenOut(key);
    } catch (e) {
      if (e instanceof CheckpointConflictError) throw e;
      throw new CheckpointConflictError(slot, `a write-out of its build failed (${e instanceof Error ? e.message : String(e)})`);
    }
  }

  async setStatus(slot: ProjectionSlot, status: ProjectionStatus, fault?: ProjectionFault | null): Promise<void> {
    const key = slotKey(slot);
    const build = this.builds.get(key);
    if (build && status !== 'rebuilding') {
      // The good prefix of a faulted build lands before the fault is recorded (as a direct commit would have it).
      this.builds.delete(key);
      await this.queues.run(key, () => this.writeOut(key, build));
    } else await this.writtenOut(key).catch(() => undefined); // its failure is the status's cause, not this call's
    if (status !== 'rebuilding' && status !== 'catching_up') this.caches.delete(key);
    if (fault === undefined) {
      await this.db.query(`UPDATE projection_checkpoints SET status = $4, updated_at = now() WHERE ${WHERE_SLOT}`, [...slotParams(slot), status]);
      return;
    }
    await this.db.query(
      `UPDATE projection_checkpoints
          SET status = $4, error = $5, failed_event_id = $6, failed_position = $7, updated_at = now()
        WHERE ${WHERE_SLOT}`,
      [...slotParams(slot), status, fault?.error ?? null, fault?.eventId ?? null, fault?.position ? formatPosition(fault.position) : null],
    );
  }

  async activate(slot: ProjectionSlot): Promise<ProjectionSlot | null> {
    const key = slotKey(slot);
    this.activated.add(key);
    try {
      return await this.switchTo(slot, key);
    } finally {
      // Switched or refused, the activation is over: a refused slot's resumed build may build again here.
      this.activated.delete(key);
    }
  }

  /** activate()'s work: the slot's build stored, its serving indexes built, then the switch in one transaction. */
  private async switchTo(slot: ProjectionSlot, key: string): Promise<ProjectionSlot | null> {
    // Its build's batches stored first (after any batch on its queue; from now on a batch is written at once).
    // The slot stored behind where its build reached (a write-out failed) is resumed from there, not switched.
    await this.queues.run(key, () => this.storedAsBuilt(slot, key, this.builds.get(key)));
    this.caches.delete(key); // caught up: it serves, and follows in small batches from here
    // Its serving indexes first, each in a transaction of its own while the old slot still serves: the switch's
    // transaction stays short. A batch committed meanwhile waits for each index's table lock, not the other way.
    const { rows } = await this.db.query<{ pending_indexes: string[] | null }>(
      `SELECT pending_indexes FROM projection_checkpoints WHERE ${WHERE_SLOT}`,
      slotParams(slot),
    );
    const built = rows[0]?.pending_indexes ?? [];
    for (const statement of built) await this.db.exec(statement);
    return this.db.transaction(async (tx) => {
      await tx.query(lockKey(`projection_switch:${slot.name}`));
      const target = await lockedRow(tx, slot);
      if (!target) throw new CheckpointConflictError(slot, 'cannot activate: slot does not exist');
      if (target.status === 'faulted') throw new CheckpointConflictError(slot, 'cannot activate: slot is faulted');
      if (target.pending_indexes) {
        // Built above, unless a reset came in between and left others (then built here, under the switch's lock).
        for (const statement of target.pending_indexes) if (!built.includes(statement)) await tx.exec(statement);
        await tx.query(`UPDATE projection_checkpoints SET pending_indexes = NULL WHERE ${WHERE_SLOT}`, slotParams(slot));
      }
      const { rows } = await tx.query<ProjectionSlot>('SELECT name, version, generation FROM projection_active WHERE name = $1', [slot.name]);
      const previous = rows[0] ?? null;
      const previousTables = previous ? ((await lockedRow(tx, previous))?.tables ?? {}) : {};
      // Views of tables the new slot no longer has go away; the others are re-pointed. DDL is transactional in
      // PostgreSQL, so readers see the old views until COMMIT and the new ones after (a reader blocked on the
      // dropped view re-resolves the name once the lock is granted).
      for (const logical of Object.keys(previousTables)) {
        if (!(logical in target.tables)) await tx.exec(`DROP VIEW IF EXISTS ${readModelView(slot.name, logical)}`);
      }
      for (const [logical, physical] of Object.entries(target.tables)) {
        const view = readModelView(slot.name, logical);
        await tx.exec(`DROP VIEW IF EXISTS ${view}; CREATE VIEW ${view} AS SELECT * FROM ${physical}`);
      }
      await tx.query(
        `INSERT INTO projection_active (name, version, generation) VALUES ($1, $2, $3)
         ON CONFLICT (name) DO UPDATE SET version = $2, generation = $3, switched_at = now()`,
        slotParams(slot),
      );
      await tx.query(
        `UPDATE projection_checkpoints SET status = 'live', updated_at = now()
          WHERE ${WHERE_SLOT} AND status = 'rebuilding'`,
        slotParams(slot),
      );
      await notifyChanged(tx, slot.name);
      return previous;
    });
  }

  async dropSlot(slot: ProjectionSlot): Promise<void> {
    this.dropBuild(slotKey(slot));
    await this.writtenOut(slotKey(slot)).catch(() => undefined); // dropped anyway
    this.activated.delete(slotKey(slot));
    await this.db.transaction(async (tx) => {
      await tx.query(lockKey(`projection_switch:${slot.name}`));
      const { rows } = await tx.query('SELECT 1 FROM projection_active WHERE name = $1 AND version = $2 AND generation = $3', slotParams(slot));
      if (rows.length) throw new Error(`refusing to drop ${slot.name} v${slot.version} g${slot.generation}: it serves`);
      const row = await lockedRow(tx, slot);
      if (!row) return;
      await tx.query(`DELETE FROM projection_checkpoints WHERE ${WHERE_SLOT}`, slotParams(slot));
      const physical = Object.values(row.tables);
      if (physical.length) await tx.exec(`DROP TABLE IF EXISTS ${physical.join(', ')}`);
    });
  }

  async resetSlot(def: AnySqlDefinition, slot: ProjectionSlot): Promise<void> {
    this.dropBuild(slotKey(slot));
    await this.writtenOut(slotKey(slot)).catch(() => undefined); // reset anyway
    await this.db.transaction(async (tx) => {
      await tx.query(lockKey(`projection_switch:${slot.name}`));
      const row = await lockedRow(tx, slot);
      if (!row) throw new CheckpointConflictError(slot, 'cannot reset: slot does not exist');
      const { rows } = await tx.query('SELECT 1 FROM projection_active WHERE name = $1 AND version = $2 AND generation = $3', slotParams(slot));
      const active = rows.length > 0;
      const tables = this.tablesFor(slot, logicalTables(def));
      if (active) for (const t of Object.keys(row.tables)) await tx.exec(`DROP VIEW IF EXISTS ${readModelView(slot.name, t)}`);
      const physical = Object.values(row.tables);
      if (physical.length) await tx.exec(`DROP TABLE IF EXISTS ${physical.join(', ')}`);
      const pending = await createTables(tx, def, tables, active);
      if (active) {
        for (const [t, p] of Object.entries(tables)) await tx.exec(`CREATE VIEW ${readModelView(slot.name, t)} AS SELECT * FROM ${p}`);
      }
      await tx.query(
        `UPDATE projection_checkpoints
            SET position = $4, status = 'catching_up', events_applied = 0, error = NULL, failed_event_id = NULL,
                failed_position = NULL, tables = $5, pending_indexes = $6, updated_at = now()
          WHERE ${WHERE_SLOT}`,
        [...slotParams(slot), formatPosition(START), JSON.stringify(tables), pending],
      );
      if (active) await notifyChanged(tx, slot.name);
    });
    if (isSqlProjection(def)) this.caches.delete(slotKey(slot));
    else this.caches.set(slotKey(slot), new SlotCache(0, formatPosition(START), true, this.cacheLimit));
  }

  async documents(def: ProjectionDefinition, collection: string): Promise<Doc[]> {
    const spec = def.collections[collection];
    if (!spec) throw new Error(`${def.name} has no collection ${collection}`);
    return readAllDocuments(this.db, readModelView(def.name, collection), spec);
  }
}

/** A refused fence is a conflict for the runner: nothing was written, re-read who owns what. */
const fencedOut = (slot: ProjectionSlot) => (e: unknown) => {
  throw e instanceof LeaseLostError ? new CheckpointConflictError(slot, e.message) : e;
};

interface LockedRow {
  status: ProjectionStatus;
  tables: Record<string, string>;
  pending_indexes: string[] | null;
}

async function lockedRow(tx: SqlExecutor, slot: ProjectionSlot): Promise<LockedRow | undefined> {
  const { rows } = await tx.query<LockedRow>(
    `SELECT status, tables, pending_indexes FROM projection_checkpoints WHERE ${WHERE_SLOT} FOR UPDATE`,
    slotParams(slot),
  );
  return rows[0];
}
