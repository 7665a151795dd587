import type { Doc } from '../documents/collections';

/**
 * What this process knows of one slot's documents as of one checkpoint: the documents it read or wrote (null =
 * known absent). Valid only while the checkpoint is still where this process left it — any other writer moves the
 * checkpoint first (a commit is conditional on it), so the store drops the cache on the first mismatch.
 *
 * `complete` means every document of the slot is here (the slot was created or reset empty by this process and
 * nothing was evicted since): then a miss is an absent document and a rebuild reads nothing back from the server,
 * which matters on FerretDB, where every round trip is a PostgreSQL transaction.
 */
export class SlotCache {
  private readonly docs = new Map<string, Map<string, Doc | null>>();
  private size = 0;

  constructor(
    readonly resets: number,
    public position: string,
    public complete: boolean,
    private readonly limit: number,
  ) {}

  /** The document, null if known absent, undefined if unknown. */
  lookup(collection: string, id: string): Doc | null | undefined {
    const known = this.docs.get(collection)?.get(id);
    if (known !== undefined) return known;
    return this.complete ? null : undefined;
  }

  /** Documents of a collection matching an equality filter; only meaningful when complete. */
  matching(collection: string, where: Doc): Doc[] {
    const out: Doc[] = [];
    for (const d of this.docs.get(collection)?.values() ?? []) {
      if (d && Object.entries(where).every(([k, v]) => d[k] === v)) out.push(d);
    }
    return out;
  }

  /** After this process committed a batch: its documents as written, the checkpoint where it moved. */
  committed(position: string, writes: readonly { write: { collection: string; id: string; doc: Doc } }[]): void {
    for (const { write } of writes) this.remember(write.collection, write.id, write.doc);
    this.position = position;
  }

  remember(collection: string, id: string, doc: Doc | null): void {
    let docs = this.docs.get(collection);
    if (!docs) this.docs.set(collection, (docs = new Map()));
    if (!docs.has(id)) this.size++;
    docs.set(id, doc);
    if (this.size > this.limit) {
      // Over budget: start again from nothing known (reads go to the server until the cache warms up).
      this.docs.clear();
      this.size = 0;
      this.complete = false;
    }
  }
}
