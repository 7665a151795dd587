import { positionFromString, positionToString, type EventStore, type GlobalPosition } from '@dob/event-store';
import { createSqlReadModelStore, type SqlProjectionDefinition } from '@dob/projections';
import type { SqlDatabase } from '@dob/sql';
import type { KafkaRelaySettings } from '../config';
import { createKafkajsPublisher } from '../kafkajs/kafkajs-publisher';
import { RelayCheckpoint, relayCheckpointName, type RelayStatus } from './relay-checkpoint';
import { replayRange } from './replay';

/**
 * What an operator runs against the relay (`npm run ops -- kafka status | replay`), shared by the CLI on its own
 * connection and by a running system's admin endpoint (the embedded default, whose folder the CLI cannot open).
 */
export function kafkaRelayStatus(db: SqlDatabase, events: EventStore, topicPrefix: string): Promise<RelayStatus> {
  return new RelayCheckpoint(createSqlReadModelStore<SqlProjectionDefinition>(db), relayCheckpointName(topicPrefix)).status(events);
}

export interface OperatorReplayProgress {
  readonly published: number;
  /** Sequence numbers covered so far out of `total`: $all has no event count of an arbitrary range, positions grow. */
  readonly done: number;
  readonly total: number;
}

export interface OperatorReplayResult {
  readonly published: number;
  readonly after: string;
  readonly last: string;
}

/** Re-publishes (after, to] — `to` defaults to the relay checkpoint, i.e. all it published — with a fresh producer. */
export async function replayForOperator(o: {
  readonly db: SqlDatabase;
  readonly events: EventStore;
  readonly settings: KafkaRelaySettings;
  readonly after: GlobalPosition;
  readonly to?: GlobalPosition;
  readonly onProgress?: (p: OperatorReplayProgress) => void;
}): Promise<OperatorReplayResult> {
  const status = await kafkaRelayStatus(o.db, o.events, o.settings.topicPrefix);
  const upTo = o.to ?? positionFromString(status.exists ? status.position : status.head);
  const base = o.after.prepare < 0n ? 0n : o.after.prepare;
  const total = Math.max(Number(upTo.prepare - base), 1);
  const publisher = createKafkajsPublisher({ brokers: o.settings.brokers, clientId: `${o.settings.clientId}-replay` });
  try {
    o.onProgress?.({ published: 0, done: 0, total });
    const result = await replayRange({
      events: o.events,
      publisher,
      after: o.after,
      upTo,
      topicPrefix: o.settings.topicPrefix,
      batchSize: o.settings.batchSize,
      onProgress: ({ published, position }) => o.onProgress?.({ published, done: Math.max(0, Number(position.prepare - base)), total }),
    });
    o.onProgress?.({ published: result.published, done: total, total });
    return { published: result.published, after: positionToString(o.after), last: positionToString(result.last) };
  } finally {
    await publisher.close();
  }
}
