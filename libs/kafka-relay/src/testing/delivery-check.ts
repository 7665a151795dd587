import { comparePositions, positionFromString, type RecordedEvent } from '@dob/event-store';
import { routeEvent } from '../analyst-topics';
import type { ReadMessage } from './topic-reader';

export interface DeliveryReport {
  readonly expected: number;
  readonly received: number;
  readonly unique: number;
  readonly duplicates: number;
  /** Store events no message carried. */
  readonly missing: string[];
  /** Keys seen in more than one partition of a topic. */
  readonly splitKeys: string[];
  /** Partitions whose first occurrences are not exactly the store's events of their keys, in position order. */
  readonly partitionsOutOfLine: string[];
  /** Keys whose first occurrences go backwards in position. */
  readonly keysOutOfOrder: string[];
}

function pushTo(map: Map<string, string[]>, key: string, value: string): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/**
 * What a deduplicating consumer sees, compared with the store: per (topic, partition), dropping repeated CloudEvent
 * ids must leave exactly the store's events of that partition's keys, in `$all` order — no gap, no reordering.
 */
export function checkDelivery(storeEvents: readonly RecordedEvent[], messages: readonly ReadMessage[], topicPrefix = ''): DeliveryReport {
  const sorted = [...messages].sort(
    (a, b) => a.topic.localeCompare(b.topic) || a.partition - b.partition || (a.offset < b.offset ? -1 : a.offset > b.offset ? 1 : 0),
  );
  const seen = new Set<string>();
  const firstByPartition = new Map<string, string[]>();
  const partitionOfKey = new Map<string, Set<string>>();
  const lastPositionOfKey = new Map<string, string>();
  const keysOutOfOrder = new Set<string>();
  for (const m of sorted) {
    const ce = JSON.parse(m.value) as { id: string; position: string };
    const where = `${m.topic}#${m.partition}`;
    const keyId = `${m.topic}/${m.key}`;
    partitionOfKey.set(keyId, (partitionOfKey.get(keyId) ?? new Set()).add(where));
    if (seen.has(ce.id)) continue;
    seen.add(ce.id);
    pushTo(firstByPartition, where, ce.id);
    const last = lastPositionOfKey.get(keyId);
    if (last && comparePositions(positionFromString(ce.position), positionFromString(last)) <= 0) keysOutOfOrder.add(keyId);
    lastPositionOfKey.set(keyId, ce.position);
  }

  const expectedByPartition = new Map<string, string[]>();
  const missing: string[] = [];
  for (const e of storeEvents) {
    const route = routeEvent(e);
    if (!route) continue;
    const places = partitionOfKey.get(`${topicPrefix}${route.topic.topic}/${route.key}`);
    if (!places || !seen.has(e.id)) {
      missing.push(e.id);
      continue;
    }
    const where = [...places][0]!;
    pushTo(expectedByPartition, where, e.id);
  }
  const partitions = new Set([...firstByPartition.keys(), ...expectedByPartition.keys()]);
  const partitionsOutOfLine = [...partitions].filter((p) => JSON.stringify(firstByPartition.get(p) ?? []) !== JSON.stringify(expectedByPartition.get(p) ?? []));
  const expected = storeEvents.filter((e) => routeEvent(e)).length;
  return {
    expected,
    received: messages.length,
    unique: seen.size,
    duplicates: messages.length - seen.size,
    missing,
    splitKeys: [...partitionOfKey].filter(([, p]) => p.size > 1).map(([k]) => k),
    partitionsOutOfLine,
    keysOutOfOrder: [...keysOutOfOrder],
  };
}
