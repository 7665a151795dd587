import { START, type GlobalPosition, type ReadAllOptions, type ReadAllPage, type RecordedEvent } from './event-store.port';
import { startPollingSubscription, type PollingSource } from './polling-subscription';
import { comparePositions, position } from './position';

/** An in-memory $all: a sorted list of events; `visibleUpTo` emulates the gap-safe horizon. */
class FakeLog implements PollingSource {
  events: RecordedEvent[] = [];
  wakers: (() => void)[] = [];
  reads = 0;

  add(n: number): void {
    for (let k = 0; k < n; k++) {
      const i = this.events.length;
      this.events.push({
        id: `e${i}`,
        streamId: 's',
        revision: i,
        type: i % 2 === 0 ? 'even' : 'odd',
        version: 1,
        data: { i },
        metadata: {},
        position: position(100 + i, i),
        recordedAt: new Date(0),
      });
    }
  }

  notify(): void {
    for (const w of this.wakers) w();
  }

  async readAll(o: ReadAllOptions): Promise<ReadAllPage> {
    this.reads++;
    const after = o.after ?? START;
    const newer = this.events.filter((e) => comparePositions(e.position, after) > 0);
    const matching = newer.filter((e) => !o.types || o.types.includes(e.type));
    const page = matching.slice(0, o.maxCount ?? 1000);
    const hasMore = matching.length > page.length;
    const head = this.events.at(-1)?.position;
    const last: GlobalPosition = hasMore ? page.at(-1)!.position : head && comparePositions(head, after) > 0 ? head : after;
    return { events: page, last, hasMore };
  }

  async listenForAppends(wake: () => void): Promise<() => Promise<void>> {
    this.wakers.push(wake);
    return async () => {
      this.wakers = this.wakers.filter((w) => w !== wake);
    };
  }
}

const until = async (cond: () => boolean): Promise<void> => {
  while (!cond()) await new Promise((r) => setTimeout(r, 1));
};

describe('startPollingSubscription', () => {
  it('delivers pages in order, reports catching up, and wakes on a notification', async () => {
    const log = new FakeLog();
    log.add(25);
    const seen: string[] = [];
    const caughtUp: GlobalPosition[] = [];
    const sub = startPollingSubscription(
      log,
      { onPage: async (p) => void seen.push(...p.events.map((e) => e.id)), onCaughtUp: (p) => caughtUp.push(p), maxCount: 10 },
      { pollIntervalMs: 3_600_000, pageSize: 1000 },
    );
    await until(() => caughtUp.length === 1);
    expect(seen).toEqual(log.events.map((e) => e.id));
    expect(caughtUp[0]).toEqual(log.events[24]!.position);

    log.add(3);
    log.notify(); // the poll interval is an hour: only the wake-up can deliver these
    await until(() => caughtUp.length === 2);
    expect(seen).toHaveLength(28);
    expect(new Set(seen).size).toBe(28);
    await sub.stop();
    await expect(sub.done).resolves.toBeUndefined();
    expect(log.wakers).toHaveLength(0);
  });

  it('reads the next page only after the handler resolved', async () => {
    const log = new FakeLog();
    log.add(30);
    let inFlight = 0;
    let maxInFlight = 0;
    const pages: number[] = [];
    const sub = startPollingSubscription(
      log,
      {
        maxCount: 7,
        onPage: async (p) => {
          inFlight++;
          maxInFlight = Math.max(maxInFlight, inFlight);
          await new Promise((r) => setTimeout(r, 2));
          pages.push(p.events.length);
          inFlight--;
        },
      },
      { pollIntervalMs: 5, pageSize: 1000 },
    );
    await until(() => pages.reduce((a, b) => a + b, 0) === 30);
    await sub.stop();
    expect(maxInFlight).toBe(1);
    expect(pages).toEqual([7, 7, 7, 7, 2]);
  });

  it('polls without any wake-up source', async () => {
    const log = new FakeLog();
    const source: PollingSource = { readAll: (o) => log.readAll(o) };
    let count = 0;
    const sub = startPollingSubscription(source, { onPage: async (p) => void (count += p.events.length) }, { pollIntervalMs: 5, pageSize: 1000 });
    log.add(4);
    await until(() => count === 4);
    await sub.stop();
  });

  it('delivers empty pages that move past filtered-out events', async () => {
    const log = new FakeLog();
    log.add(5); // e0 e2 e4 are even
    const pages: ReadAllPage[] = [];
    const sub = startPollingSubscription(log, { types: ['odd'], onPage: async (p) => void pages.push(p) }, { pollIntervalMs: 5, pageSize: 1000 });
    await until(() => pages.length === 1);
    expect(pages[0]!.events.map((e) => e.id)).toEqual(['e1', 'e3']);
    expect(pages[0]!.last).toEqual(log.events[4]!.position);
    log.add(1); // e5 odd
    log.add(1); // e6 even
    await until(() => pages.length === 2);
    await sub.stop();
    expect(pages[1]!.events.map((e) => e.id)).toEqual(['e5']);
    expect(pages[1]!.last).toEqual(log.events[6]!.position);
  });

  it('ends with the handler error', async () => {
    const log = new FakeLog();
    log.add(3);
    const sub = startPollingSubscription(log, { onPage: async () => Promise.reject(new Error('projection broke')) }, { pollIntervalMs: 5, pageSize: 1000 });
    await expect(sub.done).rejects.toThrow('projection broke');
    const readsAfterFailure = log.reads;
    await new Promise((r) => setTimeout(r, 20));
    expect(log.reads).toBe(readsAfterFailure);
    expect(log.wakers).toHaveLength(0);
    await expect(sub.stop()).resolves.toBeUndefined();
  });

  it('starts after the given position', async () => {
    const log = new FakeLog();
    log.add(6);
    const seen: string[] = [];
    const sub = startPollingSubscription(
      log,
      { after: log.events[3]!.position, onPage: async (p) => void seen.push(...p.events.map((e) => e.id)) },
      { pollIntervalMs: 5, pageSize: 1000 },
    );
    await until(() => seen.length === 2);
    await sub.stop();
    expect(seen).toEqual(['e4', 'e5']);
  });
});
