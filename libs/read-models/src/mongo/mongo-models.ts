import { encodeAmount } from '@dob/mongo';
import { DocumentCodec, documentId, readServingCollections, type Doc, type ProjectionTables } from '@dob/projections';
import type { Collection, Db, Document, Sort } from 'mongodb';
import { readModelProjections } from '../projections';
import { LEARNED_TOKEN_FIELDS, type TokenDoc } from '../projections/tokens.projection';
import type { LearnedToken } from '../queries/read-model-reader.port';
import { documentRow } from './document-rows';

/** Codecs of every read-model collection, by `projection.collection`. */
const CODECS = new Map(
  readModelProjections.flatMap((p) => Object.entries(p.collections).map(([name, spec]) => [`${p.name}.${name}`, new DocumentCodec(spec)] as const)),
);

/** Stored `amount` strings compare numerically: `$gt: positive` finds balances above zero. */
export const POSITIVE = { $gt: encodeAmount(0n) };

/** Text as a regex matching it anywhere, ASCII letters case-insensitively — what ILIKE '%text%' does on a COLLATE "C" column. */
export function containsAsciiInsensitive(text: string): RegExp {
  const pattern = [...text]
    .map((ch) => (/[a-z]/i.test(ch) ? `[${ch.toLowerCase()}${ch.toUpperCase()}]` : ch.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&')))
    .join('');
  return new RegExp(pattern);
}

/**
 * One request's view of the read models in MongoDB: the serving collections as resolved (one read of the
 * bookkeeping), typed finds that decode documents, and small lookups the readers share.
 */
export class Models {
  private tokensRead?: Promise<LearnedToken[]>;

  constructor(
    readonly db: Db,
    private readonly tables: ReadonlyMap<string, ProjectionTables>,
  ) {}

  static async open(db: Db): Promise<{ models: Models; token: string }> {
    const serving = await readServingCollections(db);
    return { models: new Models(db, serving.tables), token: serving.token };
  }

  /** A serving collection, or null before its projection first ran (then every read finds nothing). */
  private collection(projection: string, name: string): Collection | null {
    const physical = this.tables.get(projection)?.[name];
    return physical ? this.db.collection(physical) : null;
  }

  codec(projection: string, name: string): DocumentCodec {
    return CODECS.get(`${projection}.${name}`)!;
  }

  async find<T extends Doc>(projection: string, name: string, filter: Document, sort?: Sort, slice?: { offset: number; limit: number }): Promise<T[]> {
    const c = this.collection(projection, name);
    if (!c) return [];
    let cursor = c.find(filter);
    if (sort) cursor = cursor.sort(sort);
    if (slice) cursor = cursor.skip(slice.offset).limit(slice.limit);
    const codec = this.codec(projection, name);
    return (await cursor.toArray()).map((d) => codec.decode(d) as T);
  }

  async get<T extends Doc>(projection: string, name: string, key: Doc): Promise<T | null> {
    const c = this.collection(projection, name);
    if (!c) return null;
    const codec = this.codec(projection, name);
    const d = await c.findOne({ _id: documentId(codec.spec, key) as never });
    return d ? (codec.decode(d) as T) : null;
  }

  async count(projection: string, name: string, filter: Document): Promise<number> {
    const c = this.collection(projection, name);
    return c ? c.countDocuments(filter) : 0;
  }

  /** Documents by keys (one find): each key's document or nothing. */
  async byKeys<T extends Doc>(projection: string, name: string, keys: readonly Doc[]): Promise<Map<string, T>> {
    const codec = this.codec(projection, name);
    const ids = [...new Set(keys.map((k) => documentId(codec.spec, k)))];
    const docs = ids.length ? await this.find<T>(projection, name, { _id: { $in: ids } }) : [];
    return new Map(docs.map((d) => [documentId(codec.spec, d), d]));
  }

  /** The id a document of that collection has for this key (to look up byKeys results). */
  id(projection: string, name: string, key: Doc): string {
    return documentId(this.codec(projection, name).spec, key);
  }

  /**
   * Every learned token (a short collection), read once per view of the read models: per request, or while the
   * change token stays the same when the serving watch shares one view. A failed read is not kept.
   */
  learnedTokens(): Promise<LearnedToken[]> {
    this.tokensRead ??= this.find<TokenDoc>('tokens', 'tokens', {}).then(
      (rows) => rows.map((r): LearnedToken => documentRow(LEARNED_TOKEN_FIELDS, r)),
      (e: unknown) => {
        this.tokensRead = undefined;
        throw e;
      },
    );
    return this.tokensRead;
  }

  /** The learned symbol of a token, or null. */
  async symbolOf(networkId: number, address: string | null): Promise<string | null> {
    if (!address) return null;
    return (await this.learnedTokens()).find((t) => t.network_id === networkId && t.address === address)?.symbol ?? null;
  }
}

/** A port's reads as the MongoDB reader implements them: each with the request's view of the read models first. */
export type MongoReads<P> = { [K in keyof P]: P[K] extends (...args: infer A) => infer R ? (m: Models, ...args: A) => R : never };

/**
 * The port itself from its MongoDB reads: `wrap` gives each its view of the read models (and caching, error
 * mapping). The compiler checks `reads` against the port (every method, every signature), so the object built
 * here, one entry per read, is the port.
 */
export function bindReads<P>(reads: MongoReads<P>, wrap: (name: string, read: (m: Models, ...args: never[]) => Promise<unknown>) => unknown): P {
  const port: Record<string, unknown> = {};
  for (const [name, read] of Object.entries(reads)) port[name] = wrap(name, read as (m: Models, ...args: never[]) => Promise<unknown>);
  return port as P;
}

/** An amount field as the decimal string rows carry. */
export const text = (v: bigint | null): string | null => (v === null ? null : v.toString());
