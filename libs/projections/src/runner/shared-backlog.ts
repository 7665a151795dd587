import { START, positionToString, type EventStore, type GlobalPosition, type ReadAllOptions, type ReadAllPage } from '@dob/event-store';

/**
 * One read of `$all` shared by several projections working through the same backlog side by side: builds rebuilt
 * together (ProjectionRunner.rebuildAll with groups), or serving slots that a starting runner finds at one checkpoint
 * (ProjectionRunnerOptions.catchUpGroups). Reading an event costs its reader about 8 µs of CPU (docs/benchmarks-journal.md,
 * "Twelfth look") and the eight read models read 2.48 events for every event stored; four of them
 * (distribution_rounds, pool_members, pool_events, wallet_history) read 2.23M events of a union of 0.99M, so one read
 * for the four saves them a sixth of their CPU ("Which models share most of their reads").
 *
 * Each member's worker reads its backlog page by page, every page starting where the one before ended; since every
 * member starts at the same position (`from`: START for builds), all walk the same chain of positions. A page of the
 * chain is read once, with the union of the members' types, and each member gets its own types' events of it with
 * the page's `last` and `hasMore` — what a read filtered by its types would have allowed (the union holds every event
 * of its types up to `last`). A page is dropped once every member has taken it, and at most `ahead` pages are held: a
 * member running ahead waits for the slowest, so memory stays bounded whatever the history. A read off the chain (a
 * build resumed from a checkpoint, a page size not the backlog's) goes to the store directly and takes that member
 * out of the group, as does `leave()` (its build ended or failed, its catch-up is done): the others never wait for a
 * member that will not come.
 */
export class SharedBacklog {
  private readonly pages = new Map<string, { readonly page: Promise<ReadAllPage>; readonly takers: Set<number> }>();
  /** Positions a page of the chain may start at: `from`, then each read page's `last` while it has more. */
  private readonly chain: Set<string>;
  private readonly members = new Set<number>();
  private waiting: (() => void)[] = [];
  private nextMember = 0;
  private readonly ahead: number;

  /**
   * `types`: the union of the members' types (what each shared page is read with); undefined = every type. `from`:
   * where every member's backlog starts.
   */
  constructor(
    private readonly store: EventStore,
    private readonly types: readonly string[] | undefined,
    private readonly pageSize: number,
    { from = START, ahead = 4 }: { readonly from?: GlobalPosition; readonly ahead?: number } = {},
  ) {
    this.chain = new Set([positionToString(from)]);
    this.ahead = ahead;
  }

  /** A member reading only `types`: the event store its build reads through, and how it leaves the group. */
  join(types: readonly string[]): { readonly store: EventStore; leave(): void } {
    const id = this.nextMember++;
    this.members.add(id);
    const mine = types.length ? new Set(types) : undefined; // empty: every type
    const readAll = async (options: ReadAllOptions = {}): Promise<ReadAllPage> => {
      const key = positionToString(options.after ?? START);
      if (!this.members.has(id) || options.maxCount !== this.pageSize || !(this.pages.has(key) || this.chain.has(key))) {
        this.leave(id);
        return this.store.readAll(options);
      }
      const page = await this.take(id, key, options.after ?? START);
      return { events: mine ? page.events.filter((e) => mine.has(e.type)) : page.events, last: page.last, hasMore: page.hasMore };
    };
    const store = new Proxy(this.store, {
      get(target, property) {
        if (property === 'readAll') return readAll;
        const value = Reflect.get(target, property) as unknown;
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
    return { store, leave: () => this.leave(id) };
  }

  private async take(member: number, key: string, after: GlobalPosition): Promise<ReadAllPage> {
    let entry = this.pages.get(key);
    while (!entry && this.pages.size >= this.ahead) {
      await new Promise<void>((resolve) => this.waiting.push(resolve));
      entry = this.pages.get(key);
    }
    if (!entry) {
      this.chain.delete(key);
      const page = this.store.readAll({ after, maxCount: this.pageSize, ...(this.types ? { types: this.types } : {}) });
      page.then(
        (p) => p.hasMore && this.chain.add(positionToString(p.last)),
        () => undefined,
      );
      entry = { page, takers: new Set() };
      this.pages.set(key, entry);
    }
    entry.takers.add(member);
    this.release();
    return entry.page;
  }

  private leave(member: number): void {
    if (this.members.delete(member)) this.release();
  }

  /** Drops the pages every remaining member has taken, and wakes whoever waited for room. */
  private release(): void {
    let freed = false;
    for (const [key, entry] of this.pages) {
      if ([...this.members].every((m) => entry.takers.has(m))) {
        this.pages.delete(key);
        freed = true;
      }
    }
    if (!freed) return;
    const waiting = this.waiting;
    this.waiting = [];
    for (const wake of waiting) wake();
  }
}
