import { comparePositions, positionFromString, positionToString, type EventStore, type GlobalPosition } from '@dob/event-store';
import { createPostgresDatabase, type SqlDatabase } from '@dob/sql';
import { routeEvent } from '../../libs/kafka-relay/src/analyst-topics';
import { checkDelivery } from '../../libs/kafka-relay/src/testing/delivery-check';
import type { ReadMessage } from '../../libs/kafka-relay/src/testing/topic-reader';
import { readEverything } from './end-of-run';

/**
 * The Kafka relay's checkpoint (`projection_checkpoints`, row `kafka_relay`) sampled through the whole fault run:
 * it must never move backwards (a frozen owner that lost its lease writing an older position, or two relays racing)
 * and, while no broker can acknowledge, never move at all (a relay that commits before Kafka acknowledged).
 * Samples that fail (PostgreSQL away) are skipped: the watch is a bystander, not a dependency.
 */
export class RelayCheckpointWatch {
  private readonly samples: { at: number; position: GlobalPosition }[] = [];
  private readonly problems: string[] = [];
  private timer: NodeJS.Timeout | undefined;
  private sampling: Promise<void> = Promise.resolve();

  private constructor(private readonly db: SqlDatabase) {}

  static async start(connectionString: string, everyMs = 250): Promise<RelayCheckpointWatch> {
    const watch = new RelayCheckpointWatch(await createPostgresDatabase({ connectionString }));
    watch.timer = setInterval(() => {
      watch.sampling = watch.sampling.then(() => watch.sample());
    }, everyMs);
    return watch;
  }

  private async sample(): Promise<void> {
    const row = await this.db.query<{ position: string }>(`SELECT position FROM projection_checkpoints WHERE name = 'kafka_relay'`).then(
      (r) => r.rows[0],
      () => undefined,
    );
    if (!row) return;
    const position = positionFromString(row.position);
    const last = this.samples.at(-1);
    if (last && comparePositions(position, last.position) < 0) {
      this.problems.push(`the relay checkpoint moved backwards: ${positionToString(last.position)} → ${row.position}`);
    }
    this.samples.push({ at: Date.now(), position });
  }

  /** The latest sampled position (after one more sample). */
  async current(): Promise<GlobalPosition | undefined> {
    await (this.sampling = this.sampling.then(() => this.sample()));
    return this.samples.at(-1)?.position;
  }

  /** The furthest position sampled in [from, to), if any. */
  furthest(from: number, to: number): GlobalPosition | undefined {
    return this.samples
      .filter((s) => s.at >= from && s.at < to)
      .map((s) => s.position)
      .reduce<GlobalPosition | undefined>((a, b) => (a && comparePositions(a, b) >= 0 ? a : b), undefined);
  }

  /** Positions sampled in [from, to). */
  between(from: number, to: number): string[] {
    return [...new Set(this.samples.filter((s) => s.at >= from && s.at < to).map((s) => positionToString(s.position)))];
  }

  /** What went wrong so far (empty when all held). */
  backwards(): readonly string[] {
    return this.problems;
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.sampling;
    await this.db.close();
  }
}

/**
 * Every domain event the relay publishes (`routeEvent`) on its topic at least once, and per key (pool, campaign) in
 * `$all` order, as the suite's consumer group read them: checkDelivery's report, reduced to what is wrong.
 */
export async function kafkaDeliveryProblems(store: EventStore, messages: readonly ReadMessage[]): Promise<string[]> {
  const report = checkDelivery(await readEverything(store), messages);
  return [
    ...(report.missing.length > 0 ? [`${report.missing.length} of ${report.expected} relayed events on no topic (first: ${report.missing[0]})`] : []),
    ...report.splitKeys.map((k) => `key ${k} in more than one partition`),
    ...report.partitionsOutOfLine.map((p) => `partition ${p}: first occurrences not the store's events of its keys in $all order`),
    ...report.keysOutOfOrder.map((k) => `key ${k}: events out of order`),
  ];
}

/** The relayed events no message carries, as `type@position`: what a failing end-of-run Kafka check names. */
export async function eventsOnNoTopic(store: EventStore, messages: readonly ReadMessage[]): Promise<string[]> {
  const events = await readEverything(store);
  const missing = new Set(checkDelivery(events, messages).missing);
  return events.filter((e) => missing.has(e.id)).map((e) => `${e.type}@${positionToString(e.position)}`);
}

/**
 * The relay's checkpoint never ahead of what Kafka acknowledged: every relayed event at or before `checkpoint` (a
 * position the checkpoint held while no broker was up) must be on its topic in a record produced before
 * `brokersGone` (when the last broker died: nothing created later can have been acknowledged before the outage). A
 * relay that moves its checkpoint before the broker acknowledges shows here: the events of its page in hand reach
 * Kafka only after the brokers return.
 */
export async function checkpointAheadOfKafka(
  store: EventStore,
  messages: readonly ReadMessage[],
  checkpoint: GlobalPosition,
  brokersGone: number,
): Promise<string[]> {
  const firstProduced = new Map<string, number>();
  for (const m of messages) {
    const id = (JSON.parse(m.value) as { id: string }).id;
    firstProduced.set(id, Math.min(firstProduced.get(id) ?? Infinity, m.producedAt));
  }
  return (await readEverything(store))
    .filter((e) => routeEvent(e) && comparePositions(e.position, checkpoint) <= 0)
    .filter((e) => !((firstProduced.get(e.id) ?? Infinity) < brokersGone))
    .map(
      (e) =>
        `the relay checkpoint reached ${positionToString(checkpoint)} while no broker was up, but event ${e.id} (${positionToString(e.position)}) ${
          firstProduced.has(e.id) ? `was first produced ${firstProduced.get(e.id)! - brokersGone} ms after the brokers went down` : 'is on no topic'
        }`,
    );
}
