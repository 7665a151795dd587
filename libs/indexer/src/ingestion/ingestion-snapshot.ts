import { IngestionSnapshotTaken, isEventOf, type PayloadOf } from '@dob/domain';
import type { EventStore, GlobalPosition } from '@dob/event-store';

export type IngestionSnapshot = PayloadOf<typeof IngestionSnapshotTaken>;

/**
 * Where the indexer of one network keeps its snapshots. A stream of its own: the snapshot is appended in the same
 * appendMany as a window's cursor (one transaction), and its last event is read with one backwards read.
 */
export const ingestionSnapshotStreamId = (networkId: number): string => `indexer-${networkId}-snapshot`;

/** The network's last snapshot and its `$all` position (after every event of the window it was taken with). */
export async function readLatestSnapshot(store: EventStore, networkId: number): Promise<{ snapshot: IngestionSnapshot; position: GlobalPosition } | null> {
  const [last] = await store.readStream(ingestionSnapshotStreamId(networkId), { direction: 'backwards', maxCount: 1 });
  if (!last || !isEventOf(last, [IngestionSnapshotTaken.type])) return null;
  return { snapshot: last.data, position: last.position };
}
