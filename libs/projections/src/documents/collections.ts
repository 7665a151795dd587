/**
 * The shape of a projection's read models, declared once and persisted by every read-model store: each logical
 * collection has typed fields, a primary key and the indexes its queries need. The SQL store turns this into
 * tables (one column per field); the MongoDB store into collections of documents with the same fields.
 */

/** Field types. A trailing `?` (e.g. `'text?'`) makes the field nullable. */
export type FieldType =
  /** UTF-8 text, compared by code point in every store (SQL columns are COLLATE "C", MongoDB compares bytes). */
  | 'text'
  /** A safe JS integer stored as a 32-bit SQL int. */
  | 'int'
  /** A safe JS integer stored as a 64-bit SQL int8 (timestamps in seconds, intervals). */
  | 'int8'
  /** An exact integer of any size (i128 base units, share counts): a JS bigint, never a float. */
  | 'amount'
  /** An exact decimal kept as written ("12.50"): a JS string, compared numerically. */
  | 'decimal'
  | 'bool'
  /** An instant: an ISO 8601 string in documents (normalised to `Date.toISOString()`). */
  | 'timestamp';

export type FieldSpec = FieldType | `${FieldType}?`;

export type DocValue = string | number | bigint | boolean | null;
/** A read-model document: field → value, as reducers read and write it (store encodings never leak here). */
export type Doc = { readonly [field: string]: DocValue };

/**
 * An index: keys in order, `field`, `field desc`, `field asc nulls last`, … Whole indexes only (FerretDB has no
 * partial ones): a list's predicate is a leading equality key instead (e.g. `listed`, `status`).
 */
export interface IndexSpec {
  readonly keys: readonly string[];
  /**
   * A reducer's `find` reads through this index. A slot being built (a rebuild, a new version) gets its table with
   * the primary key and these indexes only; the others serve queries and are built in bulk just before the slot
   * starts serving: maintaining them row by row cost a rebuild about a third of its database CPU (issue 33).
   * libs/read-models/src/lookup-indexes.spec.ts checks that every find of the read models is served by one.
   */
  readonly lookup?: boolean;
}

export interface CollectionSpec {
  /** Every field of a document with its type, in column order. */
  readonly fields: Readonly<Record<string, FieldSpec>>;
  /** Primary-key fields (text or int types): one document per key. */
  readonly key: readonly string[];
  readonly indexes?: readonly IndexSpec[];
}

export type CollectionSpecs = Readonly<Record<string, CollectionSpec>>;

export interface ParsedField {
  readonly name: string;
  readonly type: FieldType;
  readonly nullable: boolean;
}

export interface IndexKey {
  readonly field: string;
  readonly direction: 'asc' | 'desc';
  readonly nulls?: 'first' | 'last';
}

const TYPES: readonly FieldType[] = ['text', 'int', 'int8', 'amount', 'decimal', 'bool', 'timestamp'];
const KEY_TYPES: readonly FieldType[] = ['text', 'int', 'int8'];

export function parseFields(spec: CollectionSpec): ParsedField[] {
  return Object.entries(spec.fields).map(([name, s]) => {
    const nullable = s.endsWith('?');
    const type = (nullable ? s.slice(0, -1) : s) as FieldType;
    if (!TYPES.includes(type)) throw new Error(`field ${name}: unknown type ${s}`);
    return { name, type, nullable };
  });
}

const INDEX_KEY = /^([a-z_][a-z0-9_]*)(?: (asc|desc))?(?: nulls (first|last))?$/;

export function parseIndexKey(text: string): IndexKey {
  const m = INDEX_KEY.exec(text);
  if (!m) throw new Error(`bad index key "${text}" (want "field [asc|desc] [nulls first|last]")`);
  return { field: m[1]!, direction: (m[2] as 'asc' | 'desc' | undefined) ?? 'asc', nulls: m[3] as 'first' | 'last' | undefined };
}

/** Throws if a spec is inconsistent (keys or index fields that are not fields, nullable or non-scalar keys). */
export function validateCollection(name: string, spec: CollectionSpec): void {
  const fields = new Map(parseFields(spec).map((f) => [f.name, f]));
  if (spec.key.length === 0) throw new Error(`collection ${name}: empty key`);
  for (const k of spec.key) {
    const f = fields.get(k);
    if (!f) throw new Error(`collection ${name}: key field ${k} is not a field`);
    if (f.nullable || !KEY_TYPES.includes(f.type)) throw new Error(`collection ${name}: key field ${k} must be non-null text/int/int8`);
  }
  for (const index of spec.indexes ?? []) {
    for (const k of index.keys) {
      if (!fields.has(parseIndexKey(k).field)) throw new Error(`collection ${name}: index field ${k} is not a field`);
    }
  }
}

/** The key fields' values of a document, in key order. */
export function keyValues(spec: CollectionSpec, doc: Doc): (string | number)[] {
  return spec.key.map((k) => {
    const v = doc[k];
    if (typeof v !== 'string' && typeof v !== 'number') throw new Error(`key field ${k} missing or not scalar: ${String(v)}`);
    return v;
  });
}

/**
 * A document's identity within its collection: its key values, unambiguously serialised (MongoDB keeps it as `_id`).
 * JSON.stringify of the array, not a string built piece by piece: that one is a rope, which every Map lookup of it
 * flattens first — a 1M rebuild took 10–15 s more CPU with ids built so (and the array costs nothing once inlined).
 */
export function documentId(spec: CollectionSpec, doc: Doc): string {
  return JSON.stringify(keyValues(spec, doc));
}

/** Orders documents by key (numbers numerically, text by code point): the order `find` returns. */
export function compareByKey(spec: CollectionSpec, a: Doc, b: Doc): number {
  for (const k of spec.key) {
    const x = a[k] as string | number;
    const y = b[k] as string | number;
    if (x === y) continue;
    return x < y ? -1 : 1;
  }
  return 0;
}
