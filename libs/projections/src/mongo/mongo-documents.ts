import { decimalSortKey, decodeAmount, encodeAmount, encodePosition, type MongoCapabilities } from '@dob/mongo';
import type { ClientSession, Collection, Db, Document, IndexDescription } from 'mongodb';
import {
  documentId,
  parseFields,
  parseIndexKey,
  type CollectionSpec,
  type CollectionSpecs,
  type Doc,
  type DocValue,
  type ParsedField,
} from '../documents/collections';
import type { DocumentSource, DocumentWrite } from '../documents/batch-state';
import type { ProjectionTables } from '../projection';
import type { SlotCache } from '../documents/slot-cache';

/**
 * Read-model documents as MongoDB stores them. `_id` is the key (its values as JSON), every field keeps its name;
 * amounts are order-preserving strings (FerretDB has no Decimal128, int64 cannot hold i128), decimals a
 * `{ k: sort key, v: text as written }` pair, timestamps BSON dates. `_pos` is the position of the last event that
 * wrote the document: every write is conditional on it (see writeGuarded).
 */
export type StoredDoc = Document & { _id: string; _pos: string };

/** Where a decimal's sort key lives: queries sort and compare on `<field>.k`. */
export const decimalKeyPath = (field: string): string => `${field}.k`;

export function encodeValue(f: ParsedField, v: DocValue): unknown {
  if (v === null) return null;
  switch (f.type) {
    case 'amount':
      return encodeAmount(v as bigint);
    case 'decimal':
      return { k: decimalSortKey(v as string), v };
    case 'timestamp':
      return new Date(v as string);
    default:
      return v;
  }
}

export function decodeValue(f: ParsedField, raw: unknown): DocValue {
  if (raw === null || raw === undefined) return null;
  switch (f.type) {
    case 'amount':
      return decodeAmount(raw as string);
    case 'decimal':
      return (raw as { v: string }).v;
    case 'timestamp':
      return (raw as Date).toISOString();
    case 'int':
    case 'int8':
      return Number(raw);
    default:
      return raw as string | boolean;
  }
}

/** Encodes and decodes the documents of one collection. */
export class DocumentCodec {
  readonly fields: readonly ParsedField[];
  private readonly byName: ReadonlyMap<string, ParsedField>;

  constructor(readonly spec: CollectionSpec) {
    this.fields = parseFields(spec);
    this.byName = new Map(this.fields.map((f) => [f.name, f]));
  }

  encode(doc: Doc, position: string): StoredDoc {
    const out: Document = { _id: documentId(this.spec, doc) };
    for (const f of this.fields) out[f.name] = encodeValue(f, doc[f.name]!);
    out._pos = position;
    return out as StoredDoc;
  }

  decode(stored: Document): Doc {
    const out: Record<string, DocValue> = {};
    for (const f of this.fields) out[f.name] = decodeValue(f, stored[f.name]);
    return Object.freeze(out);
  }

  /** An equality filter on fields (a decimal compares by its key, so "1.50" finds "1.5"). */
  where(where: Doc): Document {
    const filter: Document = {};
    for (const [name, v] of Object.entries(where)) {
      const f = this.field(name);
      if (f.type === 'decimal' && v !== null) filter[decimalKeyPath(name)] = decimalSortKey(v as string);
      else filter[name] = encodeValue(f, v);
    }
    return filter;
  }

  /** The key's sort, for reads in key order. */
  keySort(): Record<string, 1> {
    return Object.fromEntries(this.spec.key.map((k) => [k, 1 as const]));
  }

  private field(name: string): ParsedField {
    const f = this.byName.get(name);
    if (!f) throw new Error(`no field ${name}`);
    return f;
  }
}

export function codecs(collections: CollectionSpecs): Map<string, DocumentCodec> {
  return new Map(Object.entries(collections).map(([name, spec]) => [name, new DocumentCodec(spec)]));
}

/**
 * The declared indexes as MongoDB indexes: same keys and directions (a decimal field indexes its sort key). NULLS
 * FIRST/LAST has no MongoDB equivalent (nulls sort lowest); queries that need nulls last split the null part off.
 */
export function indexDescriptions(spec: CollectionSpec): IndexDescription[] {
  const fields = new Map(parseFields(spec).map((f) => [f.name, f]));
  return (spec.indexes ?? []).map((index, i) => {
    const key: Record<string, 1 | -1> = {};
    for (const k of index.keys) {
      const { field, direction } = parseIndexKey(k);
      key[fields.get(field)!.type === 'decimal' ? decimalKeyPath(field) : field] = direction === 'desc' ? -1 : 1;
    }
    return { key, name: `i${i}` };
  });
}

/**
 * Indexes a slot's collections still owe before it serves (see createCollections), as the slot's bookkeeping
 * document holds them: keys as a list of { field, direction } — a stored field name may not contain the dot of a
 * decimal's sort key (`estimated_apr.k`) and FerretDB stores no nested arrays — and the collections as a list, not
 * an object keyed by name: FerretDB 1.24's `$set` left an object-valued field as it was when only its keys changed
 * (`{ a: [1] }` → `{ b: [1] }`), so a reset kept the indexes its old collections owed.
 */
export type DeferredIndexes = { collection: string; indexes: { name: string; key: { field: string; direction: 1 | -1 }[] }[] }[];

/**
 * Creates a slot's (empty) collections and their indexes; an existing collection of the same name is reused.
 * `deferServing`: only the lookup indexes (IndexSpec.lookup) — a slot being built serves no query — and the others
 * are returned, for createDeferredIndexes when the slot is activated; null when nothing is deferred.
 */
export async function createCollections(
  db: Db,
  tables: ProjectionTables,
  collections: CollectionSpecs,
  options: { deferServing?: boolean } = {},
): Promise<DeferredIndexes | null> {
  const deferred: DeferredIndexes = [];
  for (const [name, spec] of Object.entries(collections)) {
    const physical = tables[name]!;
    await db.createCollection(physical).catch((e: { code?: number }) => {
      if (e.code !== 48) throw e; // NamespaceExists: a crashed createSlot/resetSlot left it
    });
    const all = indexDescriptions(spec);
    const waits = (i: number) => options.deferServing === true && !spec.indexes![i]!.lookup;
    const now = all.filter((_, i) => !waits(i));
    const later = all.filter((_, i) => waits(i));
    if (now.length) await db.collection(physical).createIndexes(now);
    if (later.length) {
      const indexes = later.map((index) => ({
        name: index.name!,
        key: Object.entries(index.key as Record<string, 1 | -1>).map(([field, direction]) => ({ field, direction })),
      }));
      deferred.push({ collection: physical, indexes });
    }
  }
  return deferred.length ? deferred : null;
}

/** Builds the indexes createCollections deferred (createIndexes is idempotent: a repeated call changes nothing). */
export async function createDeferredIndexes(db: Db, deferred: DeferredIndexes): Promise<void> {
  for (const { collection: physical, indexes } of deferred) {
    const descriptions = indexes.map((index) => ({ name: index.name, key: Object.fromEntries(index.key.map((k) => [k.field, k.direction])) }));
    await db.collection(physical).createIndexes(descriptions);
  }
}

/**
 * Reads committed documents of a slot's collections for a batch's reducer, through the slot's cache: what this
 * process already knows costs no round trip, and what it reads is remembered. `notAbove` (a slot nobody reads yet:
 * the checkpoint's `_pos` bound): a stored document written above it is taken as absent — in such a slot it can
 * only be left by a write-out that was undone (an insert of a crashed or timed-out command landing after the undo),
 * and the slot as of its checkpoint did not hold it.
 */
export class MongoDocumentSource implements DocumentSource {
  constructor(
    private readonly db: Db,
    private readonly tables: ProjectionTables,
    private readonly codecs: ReadonlyMap<string, DocumentCodec>,
    private readonly cache: SlotCache,
    private readonly session?: ClientSession,
    private readonly notAbove?: string,
  ) {}

  private stands(stored: StoredDoc | Document): boolean {
    return this.notAbove === undefined || (stored._pos as string) <= this.notAbove;
  }

  async get(collection: string, key: Doc): Promise<Doc | null> {
    const codec = this.codecs.get(collection)!;
    const id = documentId(codec.spec, key);
    const known = this.cache.lookup(collection, id);
    if (known !== undefined) return known;
    const stored = await this.db.collection<StoredDoc>(this.tables[collection]!).findOne({ _id: id }, { session: this.session });
    const doc = stored && this.stands(stored) ? codec.decode(stored) : null;
    this.cache.remember(collection, id, doc);
    return doc;
  }

  async find(collection: string, where: Doc): Promise<Doc[]> {
    if (this.cache.knowsAll(collection)) return this.cache.matching(collection, where);
    const codec = this.codecs.get(collection)!;
    const stored = await this.db.collection(this.tables[collection]!).find(codec.where(where), { session: this.session }).toArray();
    const docs = stored.filter((d) => this.stands(d)).map((d) => codec.decode(d));
    for (const d of docs) this.cache.remember(collection, documentId(codec.spec, d), d);
    return docs;
  }
}

/** One document write of a batch, as journalled and applied: physical collection, encoded document, and whether
 *  the document was taken to be absent before the batch (then it is inserted, which FerretDB does far faster). */
export interface StoredWrite {
  readonly c: string;
  readonly doc: StoredDoc;
  readonly fresh: boolean;
}

/** A write as writeUnserved takes it: its document encoded only when it is written (`doc()`). */
export interface Storable {
  readonly c: string;
  readonly id: string;
  readonly fresh: boolean;
  /** The `_pos` it is written with. */
  readonly pos: string;
  doc(): StoredDoc;
}

/**
 * A batch's write as reduced: the document as reducers see it, encoded for the server only when written — a slot
 * being rebuilt holds its writes until a write-out (BuildBuffer), and a second, encoded copy of every document its
 * cache already holds would double what a large rebuild keeps in memory. `fresh`: absent on the server before the
 * batch, known (the cache) or taken to be (a collection only ever added to, SlotCache.writesOnlyNew).
 */
export class ReducedWrite implements Storable {
  constructor(
    readonly write: DocumentWrite,
    readonly c: string,
    readonly fresh: boolean,
    private readonly codec: DocumentCodec,
  ) {}

  get id(): string {
    return this.write.id;
  }

  get pos(): string {
    return encodePosition(this.write.position);
  }

  doc(): StoredDoc {
    return this.codec.encode(this.write.doc, this.pos);
  }

  stored(): StoredWrite {
    return { c: this.c, doc: this.doc(), fresh: this.fresh };
  }

  /** The same write with another `fresh` (a build keeps a document's first: see BuildBuffer.add). */
  withFresh(fresh: boolean): ReducedWrite {
    return fresh === this.fresh ? this : new ReducedWrite(this.write, this.c, fresh, this.codec);
  }
}

/** An encoded write (a journal's) as writeUnserved takes it. */
export const storable = (w: StoredWrite): Storable => ({ c: w.c, id: w.doc._id, fresh: w.fresh, pos: w.doc._pos, doc: () => w.doc });

const DUPLICATE_KEY = 11000;
/** Ids per deleteMany of writeUnserved: the filter stays far under the 16 MB command limit. */
const IDS_PER_DELETE = 10_000;
/** Documents per insertMany of insertInLanes (a build's write-out never holds more than a few encoded at once). */
const DOCS_PER_INSERT = 1_000;
/** insertMany commands in flight at once in insertInLanes. */
const INSERT_LANES = 2;

/** A write applies only over an older stored state (or none). */
const olderThan = (d: { _id: string; _pos: string }) => ({ _id: d._id, _pos: { $lt: d._pos } });

/**
 * Applies document writes, each only if the stored document is older (`_pos` lower) or absent. A document taken to
 * be absent is inserted; any other is replaced through a filter on `_pos < new`, upserting. A write already applied
 * (a batch finished again after a crash, or by a slower process) meets a document at the same or a newer `_pos`:
 * the insert, or the upsert's insert after the filter missed, fails with a duplicate key — which here means
 * "already applied" (or, for a document only taken to be absent, "stored before"), so no write ever replaces a newer
 * state. FerretDB applies bulk operations in order whatever `ordered` says and stops at the first error, so after a
 * duplicate key the collection's writes are applied one by one as guarded replaces. Returns the collections where
 * an insert met a stored document.
 */
export async function writeGuarded(
  db: Db,
  writes: readonly StoredWrite[],
  server: Pick<MongoCapabilities, 'multiUpdateCommands'>,
  session?: ClientSession,
): Promise<ReadonlySet<string>> {
  const met = new Set<string>();
  for (const [name, all] of byCollection(writes)) {
    const collection = db.collection<StoredDoc>(name);
    const fresh = all.filter((w) => w.fresh).map((w) => w.doc);
    const known = all.filter((w) => !w.fresh).map((w) => w.doc);
    try {
      if (fresh.length) await collection.insertMany(fresh, { ordered: false, session });
      if (known.length && server.multiUpdateCommands)
        await collection.bulkWrite(
          known.map((d) => ({ replaceOne: { filter: olderThan(d), replacement: d, upsert: true } })),
          { ordered: false, session },
        );
      // One replace per command, one at a time: a FerretDB command of many locks up its pool (multiUpdateCommands).
      else for (const d of known) await collection.replaceOne(olderThan(d), d, { upsert: true, session });
    } catch (e) {
      if (!onlyDuplicates(e)) throw e;
      met.add(name);
      await replaceEachGuarded(collection, all.map(storable), session);
    }
  }
  return met;
}

/**
 * Applies a batch's writes to a slot no query reads yet (a rebuild's, before its switch), with the guarantees of
 * writeGuarded: the stored documents the batch replaces are deleted with one command per collection, then inserted
 * again with the fresh ones. FerretDB 1.24 runs every filter, `_id` included, as a sequential scan, so a guarded
 * replace per document read the whole collection each time (18 ms per pool document at 3,000: docs/benchmarks-journal.md).
 * The one bound `_pos < the lowest new _pos` is each document's guard at once: a stored document is from before
 * the batch (at most the previous checkpoint, below every position in the batch: deleted), already written by this
 * batch (a finish repeated after a crash: kept), or from a later batch (kept). A kept document fails its insert
 * with a duplicate key, and then the collection's writes are applied again as guarded replaces — so a slower
 * process's stale insert landing between the delete and the insert is replaced, never kept. Between the two
 * commands the documents are absent: only for a slot nobody reads. `onCleared`: after each delete (a test seam).
 * Returns the collections where an insert met a stored document.
 */
export async function writeUnserved(db: Db, writes: readonly Storable[], onCleared?: () => void | Promise<void>): Promise<ReadonlySet<string>> {
  const met = new Set<string>();
  for (const [name, all] of byCollection(writes)) {
    const collection = db.collection<StoredDoc>(name);
    const known = all.filter((w) => !w.fresh);
    try {
      if (known.length) {
        let below = known[0]!.pos;
        for (const w of known) {
          const pos = w.pos; // encoded on each read of it (ReducedWrite)
          if (pos < below) below = pos;
        }
        for (let i = 0; i < known.length; i += IDS_PER_DELETE) {
          const ids = known.slice(i, i + IDS_PER_DELETE).map((w) => w.id);
          await collection.deleteMany({ _id: { $in: ids }, _pos: { $lt: below } });
        }
        await onCleared?.();
      }
      await insertAll(collection, all);
    } catch (e) {
      if (!onlyDuplicates(e)) throw e;
      met.add(name);
      await replaceEachGuarded(collection, all);
    }
  }
  return met;
}

/**
 * Inserts a write-out of new documents only (every write `fresh`) into a slot no query reads yet, with no fallback:
 * false as soon as an insert met a stored document (after every lane of that collection ended), so the caller can
 * undo what was inserted and write the batch the journalled way instead (MongoReadModelStore.insertUnjournalled).
 */
export async function insertNew(db: Db, writes: readonly Storable[]): Promise<boolean> {
  for (const [name, all] of byCollection(writes)) {
    try {
      await insertAll(db.collection<StoredDoc>(name), all);
    } catch (e) {
      if (onlyDuplicates(e)) return false;
      throw e;
    }
  }
  return true;
}

/**
 * Inserts `count` documents, DOCS_PER_INSERT a command and INSERT_LANES commands side by side (`slice` encodes each
 * command's documents when it is sent): FerretDB runs each insert as a PostgreSQL transaction of its own, and one
 * at a time left a core idle (60,000 documents: 7.6–8.1k/s in one lane, 11.1–14.5k/s in two). Each lane runs to the
 * end or to its first error; then the first error that is not a duplicate key is thrown, else a duplicate key — so a
 * caller's fallback (guarded replaces) runs once nothing is being inserted any more.
 */
export async function insertInLanes(collection: Collection<StoredDoc>, count: number, slice: (from: number, to: number) => StoredDoc[]): Promise<void> {
  let next = 0;
  const lane = async () => {
    for (let from = next; from < count; from = next) {
      next = from + DOCS_PER_INSERT;
      await collection.insertMany(slice(from, Math.min(count, next)), { ordered: false });
    }
  };
  const settled = await Promise.allSettled(Array.from({ length: INSERT_LANES }, lane));
  const failures = settled.flatMap((r) => (r.status === 'rejected' ? [r.reason as unknown] : []));
  if (failures.length) throw failures.find((e) => !onlyDuplicates(e)) ?? failures[0];
}

/** Every write's document inserted, each encoded as its command is sent (insertInLanes). */
const insertAll = (collection: Collection<StoredDoc>, writes: readonly Storable[]): Promise<void> =>
  insertInLanes(collection, writes.length, (from, to) => writes.slice(from, to).map((w) => w.doc()));

function byCollection<W extends { readonly c: string }>(writes: readonly W[]): Map<string, W[]> {
  const grouped = new Map<string, W[]>();
  for (const w of writes) {
    const docs = grouped.get(w.c) ?? [];
    docs.push(w);
    grouped.set(w.c, docs);
  }
  return grouped;
}

/** Each write as a guarded replace, one at a time; a duplicate key means "already applied" (see writeGuarded). */
async function replaceEachGuarded(collection: Collection<StoredDoc>, writes: readonly Storable[], session?: ClientSession): Promise<void> {
  for (const w of writes) {
    const doc = w.doc();
    await collection.replaceOne(olderThan(doc), doc, { upsert: true, session }).catch((x: unknown) => {
      if (!onlyDuplicates(x)) throw x;
    });
  }
}

function onlyDuplicates(e: unknown): boolean {
  const x = e as { code?: number; writeErrors?: { code?: number }[] | { code?: number } };
  if (x.code === DUPLICATE_KEY) return true;
  const errors = Array.isArray(x.writeErrors) ? x.writeErrors : x.writeErrors ? [x.writeErrors] : [];
  return errors.length > 0 && errors.every((w) => w.code === DUPLICATE_KEY);
}
