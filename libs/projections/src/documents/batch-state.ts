import { type GlobalPosition, type RecordedEvent } from '@dob/event-store';
import {
  compareByKey,
  documentId,
  parseFields,
  validateCollection,
  type CollectionSpec,
  type CollectionSpecs,
  type Doc,
  type ParsedField,
} from './collections';
import { FieldIndex, indexFields, matches } from './field-index';

/**
 * What a projection's reducer sees: the read models as of the event it is applying. Reads go to the store (through
 * the batch's own writes first, so each event sees the ones before it); writes are whole documents, kept until the
 * store persists the batch. There is no delete: a document that stops counting is written in a state queries skip
 * (e.g. a zero balance), which keeps every write a guarded replace (see the MongoDB store).
 */
export interface ProjectionState {
  /** The document with this key (only key fields are read from `key`), or null. */
  get<T extends Doc = Doc>(collection: string, key: Doc): Promise<T | null>;
  /** Every document whose fields equal `where`, in key order. */
  find<T extends Doc = Doc>(collection: string, where: Doc): Promise<T[]>;
  /** Writes a whole document (every field of the collection, nothing else). It is kept as given, and frozen. */
  put(collection: string, doc: Doc): void;
}

/** The store side of ProjectionState: reads of committed documents, in logical collection names. */
export interface DocumentSource {
  get(collection: string, key: Doc): Promise<Doc | null>;
  find(collection: string, where: Doc): Promise<Doc[]>;
  /** `get` of a key whose documentId the caller has made already (a batch's reads: one id a read, not two). */
  getById?(collection: string, id: string, key: Doc): Promise<Doc | null>;
}

/** A document written by a batch: its final state and the position of the last event that wrote it. */
export interface DocumentWrite {
  readonly collection: string;
  readonly id: string;
  readonly doc: Doc;
  readonly position: GlobalPosition;
}

/**
 * One batch's unit of work: the overlay of its writes over the store, so a reducer reads what the events before it
 * wrote, and the store persists one final state per touched document at the end (one write per document per batch,
 * whatever the number of events that touched it).
 */
export class BatchState implements ProjectionState {
  private readonly fields = new Map<string, ParsedField[]>();
  private readonly written = new Map<string, Map<string, DocumentWrite>>();
  /** collection → fields of a find → index of the written documents on those fields. */
  private readonly indexes = new Map<string, Map<string, FieldIndex>>();
  private position: GlobalPosition | null = null;

  /**
   * `checked: false` (a speculative pass, documents/prefetch.ts) keeps written documents as given: nothing of that
   * pass persists, and checking every field of every write cost a rebuild more than its reducers.
   */
  constructor(
    private readonly source: DocumentSource,
    private readonly collections: CollectionSpecs,
    private readonly checked = true,
  ) {
    for (const [name, spec] of Object.entries(collections)) {
      validateCollection(name, spec);
      this.fields.set(name, parseFields(spec));
    }
  }

  /** The event being applied: its position marks the documents it writes. */
  at(position: GlobalPosition): void {
    this.position = position;
  }

  /** Not async: a rebuild reads millions of documents, and the source's promise is handed on, not wrapped again. */
  get<T extends Doc = Doc>(collection: string, key: Doc): Promise<T | null> {
    let id: string;
    try {
      id = documentId(this.spec(collection), key);
    } catch (e) {
      return Promise.reject(e as Error);
    }
    const mine = this.written.get(collection)?.get(id);
    if (mine) return Promise.resolve(mine.doc as T);
    const source = this.source;
    return (source.getById ? source.getById(collection, id, key) : source.get(collection, key)) as Promise<T | null>;
  }

  async find<T extends Doc = Doc>(collection: string, where: Doc): Promise<T[]> {
    const spec = this.spec(collection);
    const byId = new Map<string, Doc>();
    for (const d of await this.source.find(collection, where)) byId.set(documentId(spec, d), d);
    const docs = this.written.get(collection);
    if (docs) {
      // Written documents that matched once but no longer do drop out; those that match now come in.
      for (const id of byId.keys()) if (docs.has(id) && !matches(docs.get(id)!.doc, where)) byId.delete(id);
      for (const id of this.writtenMatching(collection, where)) byId.set(id, docs.get(id)!.doc);
    }
    return [...byId.values()].sort((a, b) => compareByKey(spec, a, b)) as T[];
  }

  put(collection: string, doc: Doc): void {
    if (!this.position) throw new Error('BatchState.put before at(position)');
    const spec = this.spec(collection);
    const normalised = this.checked ? normalise(collection, this.fields.get(collection)!, doc) : doc;
    const id = documentId(spec, normalised);
    let docs = this.written.get(collection);
    if (!docs) this.written.set(collection, (docs = new Map()));
    const before = docs.get(id)?.doc;
    docs.set(id, { collection, id, doc: normalised, position: this.position });
    const indexes = this.indexes.get(collection); // most collections are never filtered: no iterator for them
    if (indexes) for (const index of indexes.values()) index.move(id, before, normalised);
  }

  /**
   * Ids of this batch's written documents matching `where`, through an index on `where`'s fields kept up to date
   * by put: a page of thousands of events that each look up, say, a seller's active listings scans nothing.
   */
  private writtenMatching(collection: string, where: Doc): Iterable<string> {
    const fields = indexFields(where);
    let byFields = this.indexes.get(collection);
    if (!byFields) this.indexes.set(collection, (byFields = new Map()));
    let index = byFields.get(fields.join(','));
    if (!index) {
      byFields.set(fields.join(','), (index = new FieldIndex(fields)));
      for (const [id, w] of this.written.get(collection) ?? []) index.move(id, undefined, w.doc);
    }
    return index.ids(where);
  }

  /** The batch's writes: one final document per touched key, collections in declaration order. */
  writes(): DocumentWrite[] {
    return Object.keys(this.collections).flatMap((c) => [...(this.written.get(c)?.values() ?? [])]);
  }

  private spec(collection: string): CollectionSpec {
    const spec = this.collections[collection];
    if (!spec) throw new Error(`unknown collection ${collection}; known: ${Object.keys(this.collections).join(', ')}`);
    return spec;
  }
}

/**
 * Applies a batch through a fresh unit of work: each event in `$all` order, then the writes to persist. Every
 * store calls this, so a projection's logic exists once whatever holds its documents.
 */
export async function reduceBatch(
  source: DocumentSource,
  collections: CollectionSpecs,
  apply: (state: ProjectionState, event: RecordedEvent) => Promise<void>,
  events: readonly RecordedEvent[],
): Promise<DocumentWrite[]> {
  const state = new BatchState(source, collections);
  for (const e of events) {
    state.at(e.position);
    await apply(state, e);
  }
  return state.writes();
}

/**
 * Checks a written document against its collection and normalises timestamps, so every store sees one form. Runs
 * for every document a batch writes (a rebuild: millions), so nothing is allocated unless a check fails — the field's
 * name for the message included (5.7 % of a 1M rebuild's profile when it built one string per field) — or a value
 * changes: a document already in normal form is frozen as it is, not copied (a copy per write was 5 % of the bytes a
 * 1M rebuild allocated). `put` takes the document it is given: every field is a scalar, so freezing the object
 * freezes the document, and a reducer changing it afterwards fails instead of changing what was written.
 */
function normalise(collection: string, fields: readonly ParsedField[], doc: Doc): Doc {
  let copy: Record<string, Doc[string]> | undefined;
  for (let i = 0; i < fields.length; i++) {
    const f = fields[i]!;
    const v = doc[f.name];
    if (v === undefined) throw new Error(`${collection}.${f.name}: missing in written document`);
    const normal = checkValue(collection, f, v);
    if (normal !== v && !copy) {
      copy = {};
      for (let j = 0; j < i; j++) copy[fields[j]!.name] = doc[fields[j]!.name]!;
    }
    if (copy) copy[f.name] = normal;
  }
  let given = 0;
  for (const _ in doc) given++;
  if (given !== fields.length) {
    const extra = Object.keys(doc).filter((k) => !fields.some((f) => f.name === k));
    throw new Error(`${collection}: unknown fields ${extra.join(', ')}`);
  }
  return Object.freeze(copy ?? doc);
}

const DECIMAL = /^-?\d+(\.\d+)?$/;

function invalid(collection: string, f: ParsedField, v: Doc[string]): Error {
  return new Error(`${collection}.${f.name}: ${typeof v} ${String(v)} is not a valid ${f.type}`);
}

function checkValue(collection: string, f: ParsedField, v: Doc[string]): Doc[string] {
  if (v === null) {
    if (!f.nullable) throw new Error(`${collection}.${f.name}: null in a non-null field`);
    return null;
  }
  switch (f.type) {
    case 'text':
      if (typeof v !== 'string') throw invalid(collection, f, v);
      return v;
    case 'int':
    case 'int8':
      if (typeof v !== 'number' || !Number.isSafeInteger(v)) throw invalid(collection, f, v);
      return v;
    case 'amount':
      if (typeof v !== 'bigint') throw invalid(collection, f, v);
      return v;
    case 'decimal':
      if (typeof v !== 'string' || !DECIMAL.test(v)) throw invalid(collection, f, v);
      return v;
    case 'bool':
      if (typeof v !== 'boolean') throw invalid(collection, f, v);
      return v;
    case 'timestamp': {
      const iso = typeof v === 'string' ? toIsoTimestamp(v) : undefined;
      if (iso === undefined) throw invalid(collection, f, v);
      return iso;
    }
  }
}

/**
 * A timestamp in `Date.toISOString()` form. Parsing and re-printing one costs about 1.2 µs (Date.parse 0.26,
 * toISOString 0.9) and a rebuild normalises millions, nearly all of them in that form already: a string of exactly
 * that shape whose fields are in range (the day within its month) is what the round trip would give back, so it is
 * returned as it is after a check of its characters; anything else takes the round trip.
 */
function toIsoTimestamp(v: string): string | undefined {
  if (isCanonicalIso(v)) return v;
  const ms = Date.parse(v);
  return Number.isNaN(ms) ? undefined : new Date(ms).toISOString();
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** Character positions of `YYYY-MM-DDTHH:mm:ss.sssZ` that hold a separator, and its char code. */
const SEPARATORS: readonly (readonly [number, number])[] = [
  [4, 45], // -
  [7, 45], // -
  [13, 58], // :
  [16, 58], // :
  [19, 46], // .
];

/** `YYYY-MM-DDTHH:mm:ss.sssZ` with a real date and a time before 24:00 (years 0000–9999, as toISOString prints). */
export function isCanonicalIso(v: string): boolean {
  if (v.length !== 24 || v.charCodeAt(23) !== 90 /* Z */ || v.charCodeAt(10) !== 84 /* T */) return false;
  for (const [at, char] of SEPARATORS) if (v.charCodeAt(at) !== char) return false;
  const year = digits(v, 0, 4);
  const month = digits(v, 5, 2);
  const day = digits(v, 8, 2);
  if (year < 0 || month < 1 || month > 12 || day < 1 || digits(v, 20, 3) < 0) return false;
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  if (day > (month === 2 && leap ? 29 : DAYS_IN_MONTH[month - 1]!)) return false;
  const hour = digits(v, 11, 2);
  const minute = digits(v, 14, 2);
  const second = digits(v, 17, 2);
  return hour >= 0 && hour <= 23 && minute >= 0 && minute <= 59 && second >= 0 && second <= 59;
}

/** The decimal number of `count` ASCII digits from `from`, or -1 if any is not a digit. */
function digits(v: string, from: number, count: number): number {
  let n = 0;
  for (let i = from; i < from + count; i++) {
    const d = v.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return -1;
    n = n * 10 + d;
  }
  return n;
}
