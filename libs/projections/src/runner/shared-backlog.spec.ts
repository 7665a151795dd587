import { START, type EventStore, type GlobalPosition, type ReadAllOptions, type ReadAllPage, type RecordedEvent } from '@dob/event-store';
import { SharedBacklog } from './shared-backlog';

/** A history of `n` events alternating types a, b, c; readAll as the SQL store pages it (filtered, `last` and `hasMore`). */
function fakeStore(n: number): { store: EventStore; reads: ReadAllOptions[] } {
  const events: RecordedEvent[] = Array.from({ length: n }, (_, i) => ({
    id: `e${i}`,
    streamId: 's',
    revision: i,
    type: ['a', 'b', 'c'][i % 3]!,
    version: 1,
    data: {},
    metadata: {},
    position: { commit: BigInt(i + 1), prepare: BigInt(i + 1) },
    recordedAt: new Date(0),
  }));
  const reads: ReadAllOptions[] = [];
  const readAll = async (options: ReadAllOptions = {}): Promise<ReadAllPage> => {
    reads.push(options);
    const after = options.after ?? START;
    const rest = events.filter((e) => e.position.prepare > after.prepare && (!options.types || options.types.includes(e.type)));
    const page = rest.slice(0, options.maxCount ?? 1000);
    const hasMore = rest.length > page.length;
    const last: GlobalPosition = hasMore ? page[page.length - 1]!.position : (events[events.length - 1]?.position ?? after);
    return { events: page, last, hasMore };
  };
  return { store: { readAll, headPosition: async () => events[events.length - 1]!.position } as unknown as EventStore, reads };
}

/** Reads a member's backlog page by page, as a slot worker's catch-up does. */
async function walk(store: EventStore, pageSize: number, after: GlobalPosition = START): Promise<{ ids: string[]; pages: number }> {
  const ids: string[] = [];
  let pages = 0;
  for (;;) {
    const page = await store.readAll({ after, maxCount: pageSize });
    pages += 1;
    ids.push(...page.events.map((e) => e.id));
    after = page.last;
    if (!page.hasMore) return { ids, pages };
  }
}

describe('SharedBacklog', () => {
  it("reads each page once for every member and gives each exactly its own types' events", async () => {
    const { store, reads } = fakeStore(100);
    const backlog = new SharedBacklog(store, ['a', 'b'], 10);
    const a = backlog.join(['a']);
    const b = backlog.join(['b']);
    const [onlyA, onlyB] = await Promise.all([walk(a.store, 10), walk(b.store, 10)]);
    const direct = fakeStore(100).store;
    const ids = async (types: string[]) => (await direct.readAll({ maxCount: 1000, types })).events.map((e) => e.id);
    expect(onlyA.ids).toEqual(await ids(['a']));
    expect(onlyB.ids).toEqual(await ids(['b']));
    // 67 events of a or b in pages of 10: 7 reads, each shared, all filtered by the union.
    expect(reads).toHaveLength(7);
    expect(reads.every((r) => JSON.stringify(r.types) === '["a","b"]')).toBe(true);
  });

  it('members that start from one checkpoint (a catch-up) share the chain of pages from there', async () => {
    const { store, reads } = fakeStore(100);
    const from = { commit: 40n, prepare: 40n };
    const backlog = new SharedBacklog(store, ['a', 'b'], 10, { from });
    const a = backlog.join(['a']);
    const b = backlog.join(['b']);
    const [onlyA, onlyB] = await Promise.all([walk(a.store, 10, from), walk(b.store, 10, from)]);
    const direct = fakeStore(100).store;
    const ids = async (types: string[]) => (await direct.readAll({ after: from, maxCount: 1000, types })).events.map((e) => e.id);
    expect(onlyA.ids).toEqual(await ids(['a']));
    expect(onlyB.ids).toEqual(await ids(['b']));
    // 40 events of a or b after position 40, in pages of 10: 4 reads, each shared, from the checkpoint on.
    expect(reads).toHaveLength(4);
    expect(reads[0]).toEqual({ after: from, maxCount: 10, types: ['a', 'b'] });
  });

  it('holds at most `ahead` pages: a member running ahead waits for the slowest', async () => {
    const { store, reads } = fakeStore(200);
    const backlog = new SharedBacklog(store, ['a', 'b', 'c'], 10, { ahead: 3 });
    const fast = backlog.join(['a']);
    const slow = backlog.join(['b']);
    let fastPages = 0;
    const running = (async () => {
      let after = START;
      for (;;) {
        const page = await fast.store.readAll({ after, maxCount: 10 });
        fastPages += 1;
        after = page.last;
        if (!page.hasMore) return;
      }
    })();
    await new Promise((r) => setTimeout(r, 20));
    expect(fastPages).toBe(3); // the slow member has taken none: three pages held, the fourth waits
    expect(reads).toHaveLength(3);
    await walk(slow.store, 10);
    await running;
    expect(fastPages).toBe(20);
    expect(reads).toHaveLength(20);
  });

  it('a member that leaves (its build ended or failed) is no longer waited for', async () => {
    const { store } = fakeStore(200);
    const backlog = new SharedBacklog(store, ['a', 'b'], 10, { ahead: 2 });
    const stays = backlog.join(['a']);
    const gone = backlog.join(['b']);
    await gone.store.readAll({ maxCount: 10 });
    gone.leave();
    const all = await walk(stays.store, 10);
    expect(all.pages).toBe(14);
  });

  it('a read off the chain (a resumed build, another page size) goes to the store and leaves the group', async () => {
    const { store, reads } = fakeStore(100);
    const backlog = new SharedBacklog(store, ['a', 'b'], 10, { ahead: 1 });
    const resumed = backlog.join(['a']);
    const fresh = backlog.join(['b']);
    const from = { commit: 40n, prepare: 40n };
    const tail = await walk(resumed.store, 10, from);
    expect(reads[0]).toEqual({ after: from, maxCount: 10 }); // direct, with the member's own options
    expect(tail.ids[0]).toBe('e40'); // the first event after position 40
    await resumed.store.readAll({ maxCount: 500 }); // another page size: direct too
    expect(reads.at(-1)).toEqual({ maxCount: 500 });
    // With one page ahead at most, the fresh member would wait forever for the resumed one if it had stayed.
    const all = await walk(fresh.store, 10);
    expect(all.ids).toHaveLength(33);
  });
});
