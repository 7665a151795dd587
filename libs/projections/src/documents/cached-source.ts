import type { CollectionSpecs, Doc } from './collections';
import { documentId } from './collections';
import type { BulkDocumentSource } from './prefetch';
import type { SlotCache } from './slot-cache';

/**
 * A store's committed documents read through the slot's cache: what this process already knows (read or written
 * before, at this checkpoint) costs no round trip, a collection known in full answers every read from memory, and
 * whatever is read from the store is remembered. `known`/`knownFind` let a speculative pass (documents/prefetch.ts)
 * see cached documents as they are instead of predicting them, and `knowsAll` lets a batch skip prediction entirely.
 */
export class CachedDocumentSource implements BulkDocumentSource {
  constructor(
    private readonly store: BulkDocumentSource,
    private readonly cache: SlotCache,
    private readonly collections: CollectionSpecs,
  ) {}

  knowsAll(): boolean {
    return this.cache.complete;
  }

  /** The document from memory: null if known absent, undefined if only the store knows. */
  known(collection: string, key: Doc): Doc | null | undefined {
    return this.cache.lookup(collection, documentId(this.collections[collection]!, key));
  }

  /** A filter's documents from memory, or undefined if the collection is not known in full. */
  knownFind(collection: string, where: Doc): Doc[] | undefined {
    return this.cache.knowsAll(collection) ? this.cache.matching(collection, where) : undefined;
  }

  async get(collection: string, key: Doc): Promise<Doc | null> {
    const id = documentId(this.collections[collection]!, key);
    const known = this.cache.lookup(collection, id);
    if (known !== undefined) return known;
    const doc = await this.store.get(collection, key);
    this.cache.remember(collection, id, doc);
    return doc;
  }

  async find(collection: string, where: Doc): Promise<Doc[]> {
    const known = this.knownFind(collection, where);
    if (known) return known;
    const docs = await this.store.find(collection, where);
    this.rememberAll(collection, docs);
    return docs;
  }

  async getMany(collection: string, keys: readonly Doc[]): Promise<Doc[]> {
    const spec = this.collections[collection]!;
    const found: Doc[] = [];
    const unknown = new Map<string, Doc>();
    for (const key of keys) {
      const id = documentId(spec, key);
      const known = this.cache.lookup(collection, id);
      if (known === undefined) unknown.set(id, key);
      else if (known) found.push(known);
    }
    if (unknown.size === 0) return found;
    const fetched = await this.store.getMany(collection, [...unknown.values()]);
    this.rememberAll(collection, fetched);
    for (const d of fetched) unknown.delete(documentId(spec, d));
    for (const id of unknown.keys()) this.cache.remember(collection, id, null);
    return found.concat(fetched);
  }

  async findMany(collection: string, fields: readonly string[], wheres: readonly Doc[]): Promise<Doc[]> {
    if (this.cache.knowsAll(collection)) return wheres.flatMap((w) => this.cache.matching(collection, w));
    const docs = await this.store.findMany(collection, fields, wheres);
    this.rememberAll(collection, docs);
    return docs;
  }

  private rememberAll(collection: string, docs: readonly Doc[]): void {
    const spec = this.collections[collection]!;
    for (const d of docs) this.cache.remember(collection, documentId(spec, d), d);
  }
}
