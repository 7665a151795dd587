import type { RecordedEvent } from '@dob/event-store';
import {
  documentId,
  parseIndexKey,
  readsEventType,
  reduceBatch,
  type Doc,
  type DocumentSource,
  type IndexSpec,
  type ProjectionDefinition,
} from '@dob/projections';
import { readModelProjections } from './projections';
import { largeHistory } from './testing/large-history';

/**
 * A slot being rebuilt has its primary keys and lookup indexes only (IndexSpec.lookup); the serving indexes come at
 * the switch. So every `find` a reducer makes must be served by a lookup index whose leading keys are exactly the
 * find's fields, or a rebuild that reads the database (a catch-up after a restart, a cache over its budget) scans
 * the whole table once per find. Recorded over a generated history with every event kind the read models handle.
 */
class RecordingDocuments implements DocumentSource {
  private readonly docs = new Map<string, Map<string, Doc>>();
  /** collection → the sorted field lists of its finds. */
  readonly finds = new Map<string, Set<string>>();

  constructor(private readonly definition: ProjectionDefinition) {}

  get(collection: string, key: Doc): Promise<Doc | null> {
    return Promise.resolve(this.docs.get(collection)?.get(documentId(this.definition.collections[collection]!, key)) ?? null);
  }

  find(collection: string, where: Doc): Promise<Doc[]> {
    const fields = Object.keys(where).sort().join(',');
    this.finds.set(collection, (this.finds.get(collection) ?? new Set()).add(fields));
    const all = [...(this.docs.get(collection)?.values() ?? [])];
    return Promise.resolve(all.filter((d) => Object.entries(where).every(([k, v]) => d[k] === v)));
  }

  commit(writes: readonly { collection: string; id: string; doc: Doc }[]): void {
    for (const w of writes) {
      const docs = this.docs.get(w.collection) ?? new Map<string, Doc>();
      docs.set(w.id, w.doc);
      this.docs.set(w.collection, docs);
    }
  }
}

/** The field sets an index serves a find on: each of its leading key prefixes, sorted. */
function prefixes(index: IndexSpec): string[] {
  const fields = index.keys.map((k) => parseIndexKey(k).field);
  return fields.map((_, n) =>
    fields
      .slice(0, n + 1)
      .sort()
      .join(','),
  );
}

const lookups = (definition: ProjectionDefinition, collection: string): IndexSpec[] =>
  (definition.collections[collection]!.indexes ?? []).filter((index) => index.lookup);

describe('lookup indexes of the read models', () => {
  const events: RecordedEvent[] = [...largeHistory({ seed: 11, events: 8_000, pools: 40, wallets: 400 })]
    .flat(2)
    .flatMap((a) => a.events.map((e) => ({ ...e, streamId: a.streamId })))
    .map((e, i) => ({
      id: e.id,
      streamId: e.streamId,
      revision: i,
      type: e.type,
      version: e.version ?? 1,
      data: e.data,
      metadata: {},
      position: { commit: BigInt(i + 1), prepare: BigInt(i + 1) },
      recordedAt: new Date(0),
    }));

  it.each(readModelProjections.map((d) => [d.name, d] as const))(
    '%s: every find is served by a lookup index, every lookup index by a find',
    async (_name, definition) => {
      const documents = new RecordingDocuments(definition);
      const reaching = events.filter((e) => readsEventType(definition, e.type));
      for (let i = 0; i < reaching.length; i += 500) {
        documents.commit(await reduceBatch(documents, definition.collections, definition.apply, reaching.slice(i, i + 500)));
      }
      const served = (collection: string, fields: string) => lookups(definition, collection).some((index) => prefixes(index).includes(fields));
      const unserved = [...documents.finds].flatMap(([collection, finds]) =>
        [...finds].filter((fields) => !served(collection, fields)).map((fields) => `${collection} (${fields})`),
      );
      expect(unserved).toEqual([]);
      // A lookup index no find uses would only slow the rebuild down: it is a serving index.
      const idle = Object.keys(definition.collections).flatMap((collection) =>
        lookups(definition, collection)
          .filter((index) => ![...(documents.finds.get(collection) ?? [])].some((fields) => prefixes(index).includes(fields)))
          .map((index) => `${collection} (${index.keys.join(', ')})`),
      );
      expect(idle).toEqual([]);
    },
  );
});
