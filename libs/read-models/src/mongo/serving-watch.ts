import { readServingCollections, type ServingCollections } from '@dob/projections';
import type { Db } from 'mongodb';
import { Models } from './mongo-models';

/** What a read needs before it can ask the read models: their serving collections, and the change token. */
export interface ServingView {
  readonly models: Models;
  readonly token: string;
}

export interface ServingWatchOptions {
  /** Pause between the end of one poll and the start of the next (default 100 ms). */
  readonly pollMs?: number;
  /**
   * The staleness bound: a polled view serves reads only while the poll that read it began at most this long ago
   * (default 250 ms). Every commit before that instant is in it, so no read is further behind the projector's commit.
   */
  readonly boundMs?: number;
  /** Longest one poll may take before it counts as failed (default 2 s: the wait a request may spend on a dependency). */
  readonly pollTimeoutMs?: number;
  /** Milliseconds on a monotonic clock (default performance.now()). */
  readonly clock?: () => number;
  /** Reads the bookkeeping (tests stall or fail it). */
  readonly readServing?: (db: Db) => Promise<ServingCollections>;
}

/**
 * The MongoDB read models' serving collections and change token, polled in the background so a read does not
 * first ask the bookkeeping (issue 33: that round trip to FerretDB was most of a cached read's time). FerretDB has
 * no change streams, so polling is how a reader learns of commits; the bound makes it safe:
 *
 * - `fresh()` gives the latest polled view only while its poll began at most `boundMs` ago — a commit made before
 *   that instant is in it, so an answer from it is at most `boundMs` behind the projector's commit;
 * - otherwise (polls failing or slow: FerretDB away or busy) `view()` reads the bookkeeping itself, as a reader
 *   without the watch does, and `generation()` is undefined so answer caches keyed on it stop serving.
 *
 * A view's Models is kept while the token stays the same (the same collections, the same answers), so what it
 * memoises (the learned tokens) is shared between requests until the next change.
 */
export class MongoServingWatch {
  private latest: { view: ServingView; startedAt: number } | undefined;
  /** A read's own lookup in flight (no fresh view): reads that come while it is within the bound share it. */
  private resolving: { view: Promise<ServingView>; startedAt: number } | undefined;
  private changes = 0;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private readonly pollMs: number;
  private readonly boundMs: number;
  private readonly pollTimeoutMs: number;
  private readonly clock: () => number;
  private readonly readServing: (db: Db) => Promise<ServingCollections>;

  constructor(
    private readonly db: Db,
    options: ServingWatchOptions = {},
  ) {
    this.pollMs = options.pollMs ?? 100;
    this.boundMs = options.boundMs ?? 250;
    this.pollTimeoutMs = options.pollTimeoutMs ?? 2000;
    // A monotonic clock: the bound compares instants of this process. On the wall clock a step back (NTP, a resumed
    // VM) made the last view look fresh, and every later poll look older than it, for the length of the step.
    this.clock = options.clock ?? (() => performance.now());
    this.readServing = options.readServing ?? readServingCollections;
  }

  /** Starts polling (the first poll at once). */
  start(): this {
    const loop = async () => {
      await this.poll().catch(() => undefined); // a failed poll leaves the last view to go stale by the bound
      if (!this.stopped) this.timer = setTimeout(() => void loop(), this.pollMs).unref();
    };
    void loop();
    return this;
  }

  /** One read of the bookkeeping, bounded by the poll timeout. */
  async poll(): Promise<void> {
    await this.read(this.clock(), (serving) => withTimeout(serving, this.pollTimeoutMs));
  }

  /** The polled view while it is within the bound, else undefined. */
  fresh(): ServingView | undefined {
    const latest = this.latest;
    return latest && this.clock() - latest.startedAt <= this.boundMs ? latest.view : undefined;
  }

  /**
   * The view a read uses: the polled one within the bound, else a lookup of its own — shared by the reads that come
   * while it is in flight and began within the bound, so a slow FerretDB is not asked once per waiting request.
   */
  async view(): Promise<ServingView> {
    const fresh = this.fresh();
    if (fresh) return fresh;
    const now = this.clock();
    if (this.resolving && now - this.resolving.startedAt <= this.boundMs) return this.resolving.view;
    const view: Promise<ServingView> = this.read(now).finally(() => {
      if (this.resolving?.view === view) this.resolving = undefined;
    });
    this.resolving = { view, startedAt: now };
    return view;
  }

  /** Moves with every token change; undefined while no view within the bound is at hand. */
  generation(): number | undefined {
    return this.fresh() ? this.changes : undefined;
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  /** Reads the bookkeeping; the view it gives becomes the latest unless a later-begun read already gave one. */
  private async read(startedAt: number, bound: (serving: Promise<ServingCollections>) => Promise<ServingCollections> = (s) => s): Promise<ServingView> {
    const view = this.viewOf(await bound(this.readServing(this.db)));
    if (!this.latest || this.latest.startedAt <= startedAt) this.latest = { view, startedAt };
    return view;
  }

  private viewOf(serving: ServingCollections): ServingView {
    if (this.latest?.view.token === serving.token) return this.latest.view;
    this.changes++;
    return { models: new Models(this.db, serving.tables), token: serving.token };
  }
}

function withTimeout<T>(what: Promise<T>, ms: number): Promise<T> {
  let timer!: NodeJS.Timeout;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms)));
  return Promise.race([what, late]).finally(() => clearTimeout(timer));
}
