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

  /** No read of a batch needs predicting: every collection reducers read is known here (SlotCache.readsComplete). */
  knowsAll(): boolean {
    return this.cache.readsComplete;
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
    return this.getById(collection, documentId(this.collections[collection]!, key), key);
  }

  getById(collection: string, id: string, key: Doc): Promise<Doc | null> {
    const known = this.cache.lookup(collection, id);
    if (known !== undefined) return Promise.resolve(known);
    return this.store.get(collection, key).then((doc) => {
      this.cache.remember(collection, id, doc);
      return doc;
    });
  }

  async find(collection: string, where: Doc): Promise<Doc[]> {
    const known = this.knownFind(collection, where);
    if (known) return known;
    return this.overlaid(collection, [where], await this.store.find(collection, where));
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
    return this.overlaid(collection, wheres, await this.store.findMany(collection, fields, wheres));
  }

  /**
   * A filter's rows from the store with what the cache knows laid over them: a cached document replaces the
   * store's row of the same key, whether it still matches or not, and cached documents that match come in. The
   * same answer when the store is where the cache is; also the right one when the store is a batch behind it (a
   * batch reduced ahead while the one before commits: every document that batch wrote is cached).
   */
  private overlaid(collection: string, wheres: readonly Doc[], stored: readonly Doc[]): Doc[] {
    const spec = this.collections[collection]!;
    const out: Doc[] = [];
    for (const d of stored) {
      const id = documentId(spec, d);
      if (this.cache.lookup(collection, id) === undefined) {
        this.cache.remember(collection, id, d);
        out.push(d);
      }
    }
    for (const where of wheres) out.push(...this.cache.matching(collection, where));
    return out;
  }

  private rememberAll(collection: string, docs: readonly Doc[]): void {
    const spec = this.collections[collection]!;
    for (const d of docs) this.cache.remember(collection, documentId(spec, d), d);
  }
}
