import type { LeaseFence } from '@dob/leases';
import type { SlotCache } from '../documents/slot-cache';
import type { ReducedWrite } from './mongo-documents';
import type { SlotDoc } from './mongo-layout';

/** When a build buffer is written out (whichever comes first). */
export interface BuildFlushLimits {
  /** Events reduced into the buffer since it was last written. */
  readonly events: number;
  /** Distinct documents waiting in it. */
  readonly documents: number;
}

/**
 * Every million events or half a million documents: a write-out that replaces documents an earlier one wrote costs
 * FerretDB a whole read of the collection per 10,000 of them and a comparison of every stored document with every
 * replaced one (its `$in` is evaluated in Go, nothing pushed down to PostgreSQL), so a 1,000,000-event history
 * written every 100,000 events spent minutes per collection on deletes (docs/benchmarks-journal.md, "At 1,004,505 events").
 * Written once, every document is an insert. The buffer holds no copy of its documents (the cache holds them), so
 * what bounds it is the cache's budget: when the cache forgets a collection, the buffer is written out at once.
 */
export const DEFAULT_BUILD_FLUSH: BuildFlushLimits = { events: 1_000_000, documents: 500_000 };

/**
 * The batches of a slot being rebuilt that this process reduced but has not written yet. A rebuild slot was created
 * empty by this process, so its cache knows every document and reducers read nothing from the server; the batches
 * are then only written every `BuildFlushLimits` events, each document once in its latest state — on FerretDB every
 * write that replaces stored documents reads the whole collection (docs/read-models.md), so fewer, larger writes
 * are what a rebuild there costs. The stored checkpoint stays at the last write-out (`slot`): a crash or a stop
 * loses the buffered batches, which the resumed build reduces again from there.
 */
export class BuildBuffer {
  /** Where the buffered batches end (the checkpoint once written out). */
  position: string;
  private events = 0;
  private readonly writes = new Map<string, ReducedWrite>();
  fence?: LeaseFence;

  constructor(
    /** The slot's checkpoint document as of the last write-out (the commit point's condition). */
    public slot: SlotDoc,
    readonly cache: SlotCache,
  ) {
    this.position = slot.position;
  }

  /** A reduced batch, already reflected in the cache. A document first written here keeps its first `fresh`: it is
   *  absent on the server until the write-out, whatever later batches of the buffer did to it. */
  add(reduced: readonly ReducedWrite[], next: string, events: number, fence: LeaseFence | undefined): void {
    for (const w of reduced) {
      const key = `${w.c}\u0000${w.id}`;
      const first = this.writes.get(key);
      this.writes.set(key, first ? w.withFresh(first.fresh) : w);
    }
    this.cache.committed(next, reduced);
    this.position = next;
    this.events += events;
    this.fence = fence;
  }

  /** Whether the buffer is due to be written out. */
  full(limits: BuildFlushLimits): boolean {
    return this.events >= limits.events || this.writes.size >= limits.documents;
  }

  /** The buffered batches as one: every document's last state, and the events they applied. */
  contents(): { writes: ReducedWrite[]; events: number } {
    return { writes: [...this.writes.values()], events: this.events };
  }

  /** After a write-out: the checkpoint now stands where the buffer ended. */
  written(slot: SlotDoc): void {
    this.slot = slot;
    this.writes.clear();
    this.events = 0;
  }
}
