import { isJsonObject, type EventCatalog } from '@dob/domain';
import {
  ANY,
  BACKWARDS,
  END,
  eventTypeFilter,
  excludeSystemEvents,
  FORWARDS,
  jsonEvent,
  KurrentDBClient,
  NO_STREAM,
  START as KDB_START,
  STREAM_EXISTS,
  StreamNotFoundError,
  WrongExpectedVersionError as KdbWrongExpectedVersionError,
  type AllStreamResolvedEvent,
  type AppendStreamState,
  type EventData,
  type Filter,
  type ResolvedEvent,
} from '@kurrent/kurrentdb-client';
import { buildAppendBatch, serializeAppendBatch, type AppendBatch } from '../append-batch';
import { WrongExpectedVersionError } from '../errors';
import {
  START,
  type AppendResult,
  type EventStore,
  type EventStoreStats,
  type ExpectedVersion,
  type GlobalPosition,
  type NewEvent,
  type ReadAllOptions,
  type ReadAllPage,
  type ReadStreamOptions,
  type RecordedEvent,
  type StreamAppend,
  type SubscribeOptions,
  type Subscription,
} from '../event-store.port';
import { OpenSubscriptions, startPollingSubscription } from '../polling-subscription';
import { isAfter, maxPosition } from '../position';

export interface KurrentDbEventStoreOptions {
  /** Validates payloads on append and upcasts them on read. */
  readonly catalog?: EventCatalog;
  /** Fallback poll interval of subscriptions (a live server-side subscription wakes them earlier). */
  readonly pollIntervalMs?: number;
  /**
   * How far back from a stream's end an append looks for ids it already holds (KurrentDB has no unique index on
   * event ids; our writers re-append only the tail of a stream — an indexer window, a retried command).
   */
  readonly idempotencyWindow?: number;
}

const DEFAULT_PAGE = 1000;
const DEFAULT_IDEMPOTENCY_WINDOW = 1000;

/** What we keep in KurrentDB's event metadata: the catalog schema version beside the caller's metadata. */
interface StoredMetadata {
  readonly schemaVersion: number;
  readonly metadata: Record<string, unknown>;
}

/**
 * The event store on EventStoreDB / KurrentDB through its gRPC client (`@kurrent/kurrentdb-client`), chosen with
 * EVENTSTORE_URL (e.g. `kurrentdb://127.0.0.1:2113?tls=false`). Streams are streams; the global position is the
 * `$all` {commit, prepare} position; expected versions are expected stream states; event ids are KurrentDB event
 * ids. `appendMany` uses `multiStreamAppend` (KurrentDB ≥ 25.1), the server's atomic multi-stream append — the
 * reason we use the maintained KurrentDB client and not `@eventstore/db-client` (last released 2024, no
 * multi-stream append), since the indexer's page and its cursor must commit together.
 *
 * Not exercised against a server in CI (none can be installed on our machines): see docs/event-store.md.
 */
export function createKurrentDbEventStore(connectionString: string, options: KurrentDbEventStoreOptions = {}): EventStore {
  return new KurrentDbEventStore(KurrentDBClient.connectionString(connectionString), options);
}

class KurrentDbEventStore implements EventStore {
  private readonly subscriptions = new OpenSubscriptions();
  private closed = false;

  constructor(
    private readonly client: KurrentDBClient,
    private readonly options: KurrentDbEventStoreOptions,
  ) {}

  appendToStream(streamId: string, events: readonly NewEvent[], expectedVersion: ExpectedVersion = 'any'): Promise<AppendResult> {
    return this.appendMany([{ streamId, events, expectedVersion }]).then((r) => r[0]!);
  }

  async appendMany(appends: readonly StreamAppend[]): Promise<AppendResult[]> {
    this.assertOpen();
    if (appends.length === 0) return [];
    const batch = buildAppendBatch(appends, this.options.catalog);
    serializeAppendBatch(batch); // a payload that is not JSON is an invalid event, before anything is sent
    const plans = await Promise.all(batch.streams.map((s) => this.planStream(batch, s)));

    const writes = plans.filter((p) => p.fresh.length > 0);
    if (writes.length === 0) return plans.map((p) => ({ nextExpectedVersion: p.current, appended: 0 }));
    const revisions = await this.write(writes);
    return plans.map((p) =>
      p.fresh.length > 0 ? { nextExpectedVersion: revisions.get(p.streamId)!, appended: p.fresh.length } : { nextExpectedVersion: p.current, appended: 0 },
    );
  }

  /**
   * Per stream of a batch: the events it does not hold yet, and its current revision. A stream with nothing new
   * is not written: a full replay is a no-op whatever its expected version (as on the SQL adapters), and an empty
   * append only checks the expected version.
   */
  private async planStream(batch: AppendBatch, stream: AppendBatch['streams'][number]) {
    const events = dedupe(batch.events.filter((e) => e.i === stream.i));
    const { current, ids } = await this.tail(stream.stream_id, events.length === 0 ? 1 : (this.options.idempotencyWindow ?? DEFAULT_IDEMPOTENCY_WINDOW));
    const fresh = events.filter((e) => !ids.has(e.id));
    if (events.length === 0 && !matchesExpected(stream.expected, current)) {
      throw new WrongExpectedVersionError(stream.stream_id, stream.expected, current);
    }
    const toWrite: EventData[] = fresh.map((e) => {
      if (!isJsonObject(e.data)) throw new TypeError(`${e.type} ${e.id}: an event's data must be a JSON object`);
      return jsonEvent({ id: e.id, type: e.type, data: e.data, metadata: { schemaVersion: e.version, metadata: e.metadata } });
    });
    return { streamId: stream.stream_id, expected: stream.expected, current, fresh: toWrite };
  }

  /** The stream's current revision (-1 if absent) and the ids of its last `window` events. */
  private async tail(streamId: string, window: number): Promise<{ current: number; ids: Set<string> }> {
    const ids = new Set<string>();
    let current = -1;
    try {
      for await (const resolved of this.client.readStream(streamId, { direction: BACKWARDS, fromRevision: END, maxCount: window })) {
        const event = resolved.event;
        if (!event) continue;
        if (current === -1) current = Number(event.revision);
        ids.add(event.id.toLowerCase());
      }
    } catch (e) {
      if (!(e instanceof StreamNotFoundError)) throw e;
    }
    return { current, ids };
  }

  /** One stream: a plain append (any server version). Several: one atomic multi-stream append. */
  private async write(writes: { streamId: string; expected: string; fresh: EventData[] }[]): Promise<Map<string, number>> {
    try {
      if (writes.length === 1) {
        const [w] = writes;
        const r = await this.client.appendToStream(w!.streamId, w!.fresh, { streamState: toStreamState(w!.expected) });
        return new Map([[w!.streamId, Number(r.nextExpectedRevision)]]);
      }
      const r = await this.client.multiStreamAppend(writes.map((w) => ({ streamName: w.streamId, events: w.fresh, expectedState: toStreamState(w.expected) })));
      return new Map(r.responses.map((x) => [x.streamName, Number(x.revision)]));
    } catch (e) {
      if (e instanceof KdbWrongExpectedVersionError) {
        const expected = writes.find((w) => w.streamId === e.streamName)?.expected ?? String(e.expectedState);
        throw new WrongExpectedVersionError(e.streamName, expected, e.actualState === NO_STREAM ? -1 : Number(e.actualState));
      }
      throw e;
    }
  }

  async readStream(streamId: string, options: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
    this.assertOpen();
    const out: RecordedEvent[] = [];
    const backwards = options.direction === 'backwards';
    try {
      const read = this.client.readStream(streamId, {
        direction: backwards ? BACKWARDS : FORWARDS,
        fromRevision: options.fromRevision !== undefined ? BigInt(options.fromRevision) : backwards ? END : BigInt(0),
        ...(options.maxCount !== undefined ? { maxCount: options.maxCount } : {}),
      });
      for await (const resolved of read) {
        if (resolved.event) out.push(this.toRecorded(resolved));
      }
    } catch (e) {
      if (!(e instanceof StreamNotFoundError)) throw e;
    }
    return out;
  }

  /**
   * `$all` after a position, filtered on the server. The head is taken before the scan: when the page is not cut,
   * `last` moves to the later of that head and the last event returned, so a type-filtered reader's checkpoint
   * passes the events it skipped without passing one it has not seen. KurrentDB's `$all` has a single writer, so
   * reading it is gap-free without the SQL adapters' snapshot rule.
   */
  async readAll(options: ReadAllOptions = {}): Promise<ReadAllPage> {
    this.assertOpen();
    const after = options.after ?? START;
    const maxCount = options.maxCount ?? DEFAULT_PAGE;
    const head = await this.headPosition();
    const events: RecordedEvent[] = [];
    // A read from a position includes the event at it; one extra to see whether the page was cut.
    const read = this.client.readAll({
      direction: FORWARDS,
      fromPosition: isAfter(after, START) ? after : KDB_START,
      maxCount: maxCount + 2,
      filter: eventFilter(options.types),
    });
    for await (const resolved of read) {
      if (!resolved.event) continue;
      const event = this.toRecorded(resolved);
      if (isAfter(event.position, after)) events.push(event);
    }
    if (events.length > maxCount) {
      const page = events.slice(0, maxCount);
      return { events: page, last: page.at(-1)!.position, hasMore: true };
    }
    const last = maxPosition(after, events.length > 0 ? maxPosition(head, events.at(-1)!.position) : head);
    return { events, last, hasMore: false };
  }

  /**
   * Pages as on the SQL adapters (the shared polling subscription); a live server-side-filtered `$all`
   * subscription from the end wakes it on every new user event instead of LISTEN/NOTIFY.
   */
  subscribeToAll(options: SubscribeOptions): Subscription {
    this.assertOpen();
    const sub = startPollingSubscription(
      {
        readAll: (o) => this.readAll(o),
        listenForAppends: async (wake) => {
          const live = this.client.subscribeToAll({ fromPosition: END, filter: eventFilter(options.types) });
          live.on('data', wake);
          live.on('error', () => undefined); // polling still guarantees progress
          return () => live.unsubscribe();
        },
      },
      options,
      { pollIntervalMs: this.options.pollIntervalMs ?? 1000, pageSize: DEFAULT_PAGE },
    );
    return this.subscriptions.add(sub);
  }

  async headPosition(): Promise<GlobalPosition> {
    this.assertOpen();
    for await (const resolved of this.client.readAll({ direction: BACKWARDS, fromPosition: END, maxCount: 1, filter: excludeSystemEvents() })) {
      if (resolved.event) return toPosition(resolved);
    }
    return START;
  }

  /** KurrentDB keeps no per-type counts: this scans `$all` (an operator's command, not a hot path). */
  async stats(): Promise<EventStoreStats> {
    this.assertOpen();
    const byType: Record<string, number> = {};
    const streams = new Set<string>();
    let events = 0;
    let last = START;
    for await (const resolved of this.client.readAll({ direction: FORWARDS, fromPosition: KDB_START, filter: excludeSystemEvents() })) {
      if (!resolved.event) continue;
      events++;
      streams.add(resolved.event.streamId);
      byType[resolved.event.type] = (byType[resolved.event.type] ?? 0) + 1;
      last = toPosition(resolved);
    }
    return { events, streams: streams.size, last, byType };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.subscriptions.stopAll();
    await this.client.dispose();
  }

  private toRecorded(resolved: ResolvedEvent | AllStreamResolvedEvent): RecordedEvent {
    const event = resolved.event!;
    const stored = (event.metadata ?? {}) as Partial<StoredMetadata>;
    const version = stored.schemaVersion ?? 1;
    const current = this.options.catalog ? this.options.catalog.upcast(event.type, version, event.data) : { version, data: event.data };
    return {
      id: event.id.toLowerCase(),
      streamId: event.streamId,
      revision: Number(event.revision),
      type: event.type,
      version: current.version,
      data: current.data,
      metadata: stored.metadata ?? {},
      position: toPosition(resolved),
      recordedAt: event.created,
    };
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('event store is closed');
  }
}

/** Only our events: exactly the given types, or everything but KurrentDB's own `$`-prefixed system events. */
export function eventFilter(types: readonly string[] | undefined): Filter {
  if (!types) return excludeSystemEvents();
  const escaped = types.map((t) => t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return eventTypeFilter({ regex: `^(?:${escaped.join('|')})$` });
}

export function toStreamState(expected: string): AppendStreamState {
  if (expected === 'any') return ANY;
  if (expected === 'no_stream') return NO_STREAM;
  if (expected === 'stream_exists') return STREAM_EXISTS;
  return BigInt(expected);
}

/** The expected-version rule for an append that writes nothing (the server never sees it). */
export function matchesExpected(expected: string, current: number): boolean {
  if (expected === 'any') return true;
  if (expected === 'no_stream') return current === -1;
  if (expected === 'stream_exists') return current >= 0;
  return Number(expected) === current;
}

/** A repeated id within one append is written once (its first occurrence). */
function dedupe<E extends { id: string }>(events: E[]): E[] {
  const seen = new Set<string>();
  return events.filter((e) => !seen.has(e.id) && seen.add(e.id));
}

function toPosition(resolved: ResolvedEvent | AllStreamResolvedEvent): GlobalPosition {
  const p = resolved.event?.position;
  if (!p) throw new Error(`event ${resolved.event?.id} has no $all position`);
  return { commit: p.commit, prepare: p.prepare };
}
