import { START, type EventStore, type GlobalPosition, type ReadAllOptions, type ReadAllPage, type RecordedEvent } from '@dob/event-store';
import { replayRange } from './replay';

const at = (n: number): GlobalPosition => ({ commit: BigInt(n), prepare: BigInt(n) });
const event = (n: number): RecordedEvent => ({
  id: `e${n}`,
  streamId: 's',
  revision: n,
  type: 'NotRelayed',
  version: 1,
  data: {},
  metadata: {},
  position: at(n),
  recordedAt: new Date(0),
});

/** An event store whose filtered pages end early (the port allows it): the first with no events at all. */
function windowedStore(pages: ReadAllPage[]): { store: EventStore; reads: (GlobalPosition | undefined)[] } {
  const reads: (GlobalPosition | undefined)[] = [];
  const store = {
    readAll: async (o: ReadAllOptions) => {
      reads.push(o.after);
      const page = pages.shift();
      if (!page) throw new Error('read past the last page');
      return page;
    },
  } as unknown as EventStore;
  return { store, reads };
}

describe('replayRange', () => {
  it('reads on from where a page without events ended (a filtered read that ended early)', async () => {
    const { store, reads } = windowedStore([
      { events: [], last: at(5), hasMore: true },
      { events: [event(6), event(7)], last: at(9), hasMore: true },
      { events: [event(12)], last: at(12), hasMore: false },
    ]);
    const publisher = { publish: async () => undefined };
    const r = await replayRange({ events: store, publisher: publisher as never, after: START, upTo: at(20) });
    expect(reads).toEqual([START, at(5), at(9)]);
    expect(r.last).toEqual(at(12));
  });

  it('stops once a page has gone past the upper bound, even with no event in range', async () => {
    const { store, reads } = windowedStore([
      { events: [event(2)], last: at(4), hasMore: true },
      { events: [], last: at(30), hasMore: true },
    ]);
    const r = await replayRange({ events: store, publisher: { publish: async () => undefined } as never, after: START, upTo: at(20) });
    expect(reads).toEqual([START, at(4)]);
    expect(r.last).toEqual(at(4));
  });
});
