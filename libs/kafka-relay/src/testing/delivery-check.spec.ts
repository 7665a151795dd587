import { position, type RecordedEvent } from '@dob/event-store';
import { toAnalystMessage } from '../cloud-event';
import { checkDelivery } from './delivery-check';
import { flowEvent } from './event-flow';
import type { ReadMessage } from './topic-reader';

// The checker the resilience tests rely on must itself catch a gap, a reordering and a key split.
describe('checkDelivery', () => {
  const stored: RecordedEvent[] = Array.from({ length: 12 }, (_, n) => {
    const { streamId, event } = flowEvent('check', n, 2);
    return { ...event, streamId, revision: n, metadata: {}, position: position(100 + n, 100 + n), recordedAt: new Date() } as RecordedEvent;
  });
  const asRead = (events: readonly RecordedEvent[], partitionOf = (_key: string) => 0): ReadMessage[] => {
    const offsets = new Map<string, bigint>();
    return events.map((e) => {
      const m = toAnalystMessage(e)!;
      const partition = partitionOf(m.key);
      const where = `${m.topic}#${partition}`;
      const offset = offsets.get(where) ?? 0n;
      offsets.set(where, offset + 1n);
      return { topic: m.topic, partition, offset, key: m.key, value: m.value, headers: m.headers, receivedAt: 0, producedAt: 0 };
    });
  };

  it('passes an exact delivery and counts duplicates of a re-sent prefix', () => {
    const report = checkDelivery(stored, asRead([...stored.slice(0, 5), ...stored]));
    expect(report).toEqual({ expected: 12, received: 17, unique: 12, duplicates: 5, missing: [], splitKeys: [], partitionsOutOfLine: [], keysOutOfOrder: [] });
  });

  it('reports a gap, a reordering and a key in two partitions', () => {
    expect(checkDelivery(stored, asRead(stored.filter((_, i) => i !== 4))).missing).toEqual([stored[4]!.id]);
    const swapped = [...stored];
    [swapped[0], swapped[6]] = [swapped[6]!, swapped[0]!]; // same key, same topic: 6 before 0
    const reordered = checkDelivery(stored, asRead(swapped));
    expect(reordered.keysOutOfOrder.length).toBeGreaterThan(0);
    expect(reordered.partitionsOutOfLine.length).toBeGreaterThan(0);
    const seen = new Map<string, number>(); // each key's second message lands in another partition
    const split = (key: string) => {
      seen.set(key, (seen.get(key) ?? -1) + 1);
      return seen.get(key)! % 2;
    };
    expect(checkDelivery(stored, asRead(stored, split)).splitKeys.length).toBeGreaterThan(0);
  });
});
