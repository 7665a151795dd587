/**
 * slot-worker.spec.ts's scenario in a process of its own, where an unhandled rejection does what it does in the
 * apps (ends the process) instead of what it does under Jest (nothing): a catch-up whose second page's commit fails
 * while the third page is still being read. Prints how the worker ended.
 *   node -r ./scripts/register.js libs/projections/src/testing/failing-commit-child.ts
 */
import { START, type EventStore, type GlobalPosition, type ReadAllPage, type RecordedEvent } from '@dob/event-store';
import type { ProjectionDefinition, ProjectionSlot } from '../projection';
import type { ReadModelStore, ReducedBatch } from '../read-model-store.port';
import { SlotWorker } from '../runner/slot-worker';

const at = (n: number): GlobalPosition => ({ commit: BigInt(n), prepare: BigInt(n) });
const event = (n: number): RecordedEvent => ({
  id: `e${n}`,
  streamId: 's',
  revision: n,
  type: 'Counted',
  version: 1,
  data: {},
  metadata: {},
  position: at(n),
  recordedAt: new Date(0),
});
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A backlog of `pages` full pages of 10 events, each read taking `readMs`. */
function backlog(pages: number, readMs: number): EventStore {
  const readAll = async ({ after }: { after?: GlobalPosition }): Promise<ReadAllPage> => {
    await sleep(readMs);
    const from = Number(after?.commit ?? -1) + 1;
    const events = from >= pages * 10 ? [] : Array.from({ length: 10 }, (_, i) => event(from + i));
    return { events, last: events.at(-1)?.position ?? after ?? START, hasMore: events.length > 0 };
  };
  return { readAll, subscribeToAll: () => ({ done: sleep(0), stop: async () => undefined }) } as unknown as EventStore;
}

const definition = { name: 'counts', version: 1, eventTypes: [], collections: {}, apply: async () => undefined } as ProjectionDefinition;
const slot: ProjectionSlot = { name: 'counts', version: 1, generation: 0 };

async function main(): Promise<void> {
  const commits: number[] = [];
  const store = {
    isUnavailable: () => true, // the server went away: the worker stops and is retried
    reduceAhead: async (): Promise<ReducedBatch> => ({ reducedAhead: true }),
    commitBatch: async (_d: unknown, _s: unknown, _e: unknown, next: GlobalPosition, events: readonly RecordedEvent[]) => {
      commits.push(events.length);
      if (Number(next.commit) >= 19) throw new Error('connection lost'); // the second page's commit
    },
  } as unknown as ReadModelStore;
  // Reads are slow (200 ms), so the second page's commit fails while the third page is still being read.
  const worker = new SlotWorker(backlog(5, 200), store, definition, slot, START, { batchSize: 5, catchUpBatchSize: 10 });
  const end = await worker.done;
  await sleep(50);
  console.log(JSON.stringify({ end: end.kind, commits, checkpoint: String(worker.checkpoint.commit) }));
}

void main();
