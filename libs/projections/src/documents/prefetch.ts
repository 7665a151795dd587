import type { RecordedEvent } from '@dob/event-store';
import { BatchState, type DocumentSource, type ProjectionState } from './batch-state';
import { compareByKey, documentId, type CollectionSpecs, type Doc } from './collections';

/**
 * A store that can answer many reads in one round trip: the committed documents with any of `keys`, and every
 * committed document matching any of `wheres` (each `where` has the same fields, none null).
 */
export interface BulkDocumentSource extends DocumentSource {
  getMany(collection: string, keys: readonly Doc[]): Promise<Doc[]>;
  findMany(collection: string, fields: readonly string[], wheres: readonly Doc[]): Promise<Doc[]>;
  /** Every read is answered from memory (a slot cache known in full): nothing to predict. */
  knowsAll?(): boolean;
  /** A document from memory without a round trip: null if known absent, undefined if unknown. */
  known?(collection: string, key: Doc): Doc | null | undefined;
  /** A filter's documents from memory, undefined if unknown. */
  knownFind?(collection: string, where: Doc): Doc[] | undefined;
}

/**
 * Batches smaller than this apply with one read per key as before: a live batch of a few events pays no
 * speculative pass and no prefetch queries.
 */
export const PREFETCH_MIN_EVENTS = 32;

type Apply = (state: ProjectionState, event: RecordedEvent) => Promise<void>;

/**
 * What a speculative pass over a batch asked the store for, per collection. What the source holds in memory is
 * answered as it is (so the pass predicts the reads that depend on it) and not asked for.
 */
class ReadRecorder implements DocumentSource {
  readonly keys = new Map<string, Map<string, Doc>>();
  readonly wheres = new Map<string, Map<string, Doc>>();

  constructor(
    private readonly collections: CollectionSpecs,
    private readonly source: BulkDocumentSource,
  ) {}

  get(collection: string, key: Doc): Promise<Doc | null> {
    const known = this.source.known?.(collection, key);
    if (known !== undefined) return Promise.resolve(known);
    const spec = this.collections[collection]!;
    bucket(this.keys, collection).set(documentId(spec, key), key);
    return Promise.resolve(null);
  }

  find(collection: string, where: Doc): Promise<Doc[]> {
    const known = this.source.knownFind?.(collection, where);
    if (known) return Promise.resolve(known);
    bucket(this.wheres, collection).set(whereId(where), where);
    return Promise.resolve([]);
  }
}

/**
 * Committed documents fetched up front for one batch. `get` of a key that was asked for answers from memory,
 * found or not (absent is known too); `find` of a prefetched filter answers from the rows fetched for it. Anything
 * else goes to `fallback`: in the real pass the store, one query as before — so the answers are the store's
 * whatever the prediction was; in a speculative pass the recorder of what to fetch next.
 */
class Prefetched {
  private readonly docs = new Map<string, Map<string, Doc | null>>();
  private readonly found = new Map<string, Map<string, Doc[]>>();

  constructor(private readonly collections: CollectionSpecs) {}

  /** Fetches what `recorded` asked for and this has not fetched yet; false when there was nothing new. */
  async load(recorded: ReadRecorder, bulk: BulkDocumentSource): Promise<boolean> {
    let fetched = false;
    for (const [collection, asked] of recorded.keys) {
      const spec = this.collections[collection]!;
      const docs = bucket(this.docs, collection);
      const keys = [...asked].filter(([id]) => !docs.has(id));
      if (keys.length === 0) continue;
      fetched = true;
      for (const [id] of keys) docs.set(id, null);
      for (const d of await bulk.getMany(
        collection,
        keys.map(([, k]) => k),
      ))
        docs.set(documentId(spec, d), d);
    }
    for (const [collection, wheres] of recorded.wheres) {
      const found = bucket(this.found, collection);
      const byFields = new Map<string, Doc[]>();
      for (const [id, w] of wheres) {
        if (found.has(id) || Object.values(w).some((v) => v === null)) continue; // IS NULL filters stay single queries
        const fields = Object.keys(w).sort().join(',');
        const group = byFields.get(fields);
        if (group) group.push(w);
        else byFields.set(fields, [w]);
      }
      for (const [fields, group] of byFields) {
        fetched = true;
        const names = fields.split(',');
        const fetchedRows = group.map((w) => {
          const rows: Doc[] = [];
          found.set(whereId(w), rows);
          return rows;
        });
        for (const d of await bulk.findMany(collection, names, group)) {
          found.get(whereId(Object.fromEntries(names.map((n) => [n, d[n]!]))))?.push(d);
        }
        // In key order once here, not on every find of the batch.
        for (const rows of fetchedRows) rows.sort((a, b) => compareByKey(this.collections[collection]!, a, b));
      }
    }
    return fetched;
  }

  over(fallback: DocumentSource): DocumentSource {
    return {
      get: async (collection, key) => {
        const docs = this.docs.get(collection);
        const id = documentId(this.collections[collection]!, key);
        return docs?.has(id) ? docs.get(id)! : fallback.get(collection, key);
      },
      find: async (collection, where) => {
        const rows = this.found.get(collection)?.get(whereId(where));
        return rows ? [...rows] : fallback.find(collection, where);
      },
    };
  }
}

const isBulk = (s: DocumentSource): s is BulkDocumentSource => 'getMany' in s && 'findMany' in s;

/** Speculative passes per batch at most: each fetches what the previous one learned it would read next. */
const PREFETCH_ROUNDS = 2;

/**
 * The source a batch's reducers read through. A large batch (a catch-up page, a rebuild) is first applied
 * speculatively, only to learn which documents and filters its events read: unknown documents read as absent and
 * are recorded, then fetched in one query per collection; the next pass sees them and may ask for more (a pool's
 * version decides which balances move). The real pass then reads memory instead of making one round trip per key.
 * Reducers are deterministic and read only the event and documents, so running them more than once changes
 * nothing; a speculative pass that throws (it saw documents as absent) only predicts less.
 */
export async function prefetchingSource(
  source: DocumentSource,
  collections: CollectionSpecs,
  apply: Apply,
  events: readonly RecordedEvent[],
): Promise<DocumentSource> {
  if (events.length < PREFETCH_MIN_EVENTS || !isBulk(source) || source.knowsAll?.()) return source;
  const prefetched = new Prefetched(collections);
  for (let round = 0; round < PREFETCH_ROUNDS; round++) {
    const recorder = new ReadRecorder(collections, source);
    const speculative = new BatchState(prefetched.over(recorder), collections, false);
    for (const e of events) {
      speculative.at(e.position);
      await apply(speculative, e).catch(() => undefined);
    }
    if (!(await prefetched.load(recorder, source))) break;
  }
  return prefetched.over(source);
}

function bucket<V>(map: Map<string, Map<string, V>>, collection: string): Map<string, V> {
  let m = map.get(collection);
  if (!m) map.set(collection, (m = new Map()));
  return m;
}

/** A filter's identity: its fields in name order with their values. */
function whereId(where: Doc): string {
  return JSON.stringify(
    Object.keys(where)
      .sort()
      .map((k) => [k, typeof where[k] === 'bigint' ? `${String(where[k])}n` : where[k]]),
  );
}
