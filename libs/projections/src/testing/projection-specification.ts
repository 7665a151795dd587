import type { RecordedEvent } from '@dob/event-store';
import { documentId, readsEventType, reduceBatch, type Doc, type DocumentSource, type ProjectionDefinition } from '../index';

/** An event as a specification writes it: a type and its payload (ids, streams and positions are filled in). */
export interface SpecEvent {
  readonly type: string;
  readonly data: unknown;
  readonly id?: string;
  readonly streamId?: string;
}

/** Every collection's documents, in key order. */
export type Documents = Record<string, Doc[]>;

/**
 * Given/when/then for a projection (emmett's projection specifications): the `given` events are applied and
 * committed as one batch, the `when` events as the next, and `then` compares every document of the collections it
 * names with what the projection wrote — through the same unit of work (BatchState) the stores use, over an
 * in-memory store, so a specification runs in milliseconds and tests the reducer, not a database. Only the events the
 * projection subscribes to reach it, as the runner's filter on the store lets through: an event type the projection
 * handles but does not subscribe to changes nothing here either, so a forgotten subscription fails the spec.
 *
 *   await ProjectionSpec.for(poolsProjection).given(registered).when(initialized).then({ pools: [expectedPool] });
 */
export class ProjectionSpec {
  private constructor(private readonly definition: ProjectionDefinition) {}

  static for(definition: ProjectionDefinition): ProjectionSpec {
    return new ProjectionSpec(definition);
  }

  given(...events: SpecEvent[]): { when(...events: SpecEvent[]): Outcome } {
    return { when: (...later) => new Outcome(this.definition, events, later) };
  }
}

class Outcome {
  constructor(
    private readonly definition: ProjectionDefinition,
    private readonly given: readonly SpecEvent[],
    private readonly when: readonly SpecEvent[],
  ) {}

  /** Asserts the named collections hold exactly these documents (key order); other collections are not checked. */
  async then(expected: Documents): Promise<void> {
    const actual = await this.documents();
    for (const [collection, docs] of Object.entries(expected)) expect({ [collection]: actual[collection] ?? [] }).toEqual({ [collection]: docs });
  }

  /** Asserts that applying the `when` events throws (the runner would fault the projection at that event). */
  async thenThrows(message: string | RegExp): Promise<void> {
    await expect(this.documents()).rejects.toThrow(message);
  }

  /** The documents after both batches, per collection, in key order. */
  async documents(): Promise<Documents> {
    const store = new MemoryDocuments(this.definition);
    // Recorded first, then filtered: the events that reach the projection keep the positions they had in `$all`.
    const events = recorded([...this.given, ...this.when]);
    const reaching = (batch: RecordedEvent[]) => batch.filter((e) => readsEventType(this.definition, e.type));
    await store.commit(reaching(events.slice(0, this.given.length)));
    await store.commit(reaching(events.slice(this.given.length)));
    return store.all();
  }
}

function recorded(events: readonly SpecEvent[]): RecordedEvent[] {
  return events.map((e, i) => ({
    id: e.id ?? `event-${i + 1}`,
    streamId: e.streamId ?? 'spec',
    revision: i,
    type: e.type,
    version: 1,
    data: e.data,
    metadata: {},
    position: { commit: BigInt(i + 1), prepare: BigInt(i + 1) },
    recordedAt: new Date(0),
  }));
}

/** Committed documents in memory: what a read-model store would hold between batches. */
class MemoryDocuments implements DocumentSource {
  private readonly docs = new Map<string, Map<string, Doc>>();

  constructor(private readonly definition: ProjectionDefinition) {}

  async commit(events: readonly RecordedEvent[]): Promise<void> {
    const writes = await reduceBatch(this, this.definition.collections, (s, e) => this.definition.apply(s, e), events);
    for (const w of writes) this.collection(w.collection).set(w.id, w.doc);
  }

  async get(collection: string, key: Doc): Promise<Doc | null> {
    return this.collection(collection).get(documentId(this.definition.collections[collection]!, key)) ?? null;
  }

  async find(collection: string, where: Doc): Promise<Doc[]> {
    return [...this.collection(collection).values()].filter((d) => Object.entries(where).every(([k, v]) => d[k] === v));
  }

  all(): Documents {
    const out: Documents = {};
    for (const name of Object.keys(this.definition.collections)) {
      out[name] = [...this.collection(name).entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, d]) => d);
    }
    return out;
  }

  private collection(name: string): Map<string, Doc> {
    let c = this.docs.get(name);
    if (!c) this.docs.set(name, (c = new Map()));
    return c;
  }
}
