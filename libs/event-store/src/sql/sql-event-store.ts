import type { EventCatalog } from '@dob/domain';
import type { SqlDatabase } from '@dob/sql';
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
import { isAfter, position } from '../position';
import { buildAppendBatch, serializeAppendBatch, type AppendBatch } from '../append-batch';
import { APPENDED_CHANNEL, migrateEventStore } from './migrations';
import { buildReadAllQuery, EVENT_COLUMNS, HEAD_SQL } from './read-all-query';

/** Besides the event columns, a readAll page's last row carries the readable head (NULL on the others). */
interface ReadAllRowExtras {
  head_commit: string;
  head_prepare: string;
}
import { toRecordedEvent, type EventRow } from './rows';
import { StreamHeads } from './stream-heads';
import { isConcurrentDuplicateId, isNumberedBatchRefusal, toEventStoreError } from './sql-errors';
import { numberBatch } from './numbered-batch';
import { EventCounts } from './event-counts';

export interface SqlEventStoreOptions {
  /** Validates payloads on append and upcasts them on read. */
  readonly catalog?: EventCatalog;
  /** Default poll interval of subscriptions (NOTIFY wakes them earlier). */
  readonly pollIntervalMs?: number;
}

const DEFAULT_PAGE = 1000;
const APPEND_SQL = 'SELECT stream_index, next_revision, appended FROM es_append($1::jsonb)';
/** A concurrent batch inserting the same event id makes ours fail once; the retry then skips it idempotently. */
const DUPLICATE_ID_RETRIES = 3;

/**
 * The event store over the SQL port: one class for PGlite and PostgreSQL (same dialect). It owns its tables
 * (migrated on creation) but not the database connection: close() stops its subscriptions, the caller closes db.
 */
export async function createSqlEventStore(db: SqlDatabase, options: SqlEventStoreOptions = {}): Promise<EventStore> {
  await migrateEventStore(db);
  return new SqlEventStore(db, options);
}

class SqlEventStore implements EventStore {
  private readonly subscriptions = new OpenSubscriptions();
  /** Heads this process saw its appends reach, sent with each batch so es_append need not look them up. */
  private readonly heads = new StreamHeads();
  private closed = false;
  /** stats(), counted incrementally (each event once per process). */
  private readonly counts: EventCounts;

  constructor(
    private readonly db: SqlDatabase,
    private readonly options: SqlEventStoreOptions,
  ) {
    this.counts = new EventCounts(db, () => this.headPosition());
  }

  appendToStream(streamId: string, events: readonly NewEvent[], expectedVersion: ExpectedVersion = 'any'): Promise<AppendResult> {
    return this.appendMany([{ streamId, events, expectedVersion }]).then((r) => r[0]!);
  }

  async appendMany(appends: readonly StreamAppend[]): Promise<AppendResult[]> {
    this.assertOpen();
    if (appends.length === 0) return [];
    const batch = buildAppendBatch(appends, this.options.catalog);
    // Every head known and every expectation met by it: the batch goes numbered, and es_append only INSERTs it.
    const numbered = numberBatch(batch, (streamId) => this.heads.get(streamId));
    if (numbered) {
      try {
        await this.db.query(APPEND_SQL, [numbered.json]);
        this.recordHeads(batch, numbered.results);
        return numbered.results;
      } catch (e) {
        if (!isNumberedBatchRefusal(e)) return this.failed(appends, e);
        // A head was behind or an id is stored already: es_append numbers the plain batch from the stored heads.
      }
    }
    for (const s of batch.streams) s.h = this.heads.get(s.stream_id);
    const json = serializeAppendBatch(batch);
    for (let attempt = 0; ; attempt++) {
      try {
        const { rows } = await this.db.query<{ stream_index: number; next_revision: string; appended: number }>(APPEND_SQL, [json]);
        const results: AppendResult[] = new Array(appends.length);
        for (const r of rows) results[r.stream_index] = { nextExpectedVersion: Number(r.next_revision), appended: Number(r.appended) };
        this.recordHeads(batch, results);
        return results;
      } catch (e) {
        if (attempt < DUPLICATE_ID_RETRIES && isConcurrentDuplicateId(e)) continue;
        return this.failed(appends, e);
      }
    }
  }

  private recordHeads(batch: AppendBatch, results: readonly AppendResult[]): void {
    for (const s of batch.streams) this.heads.record(s.stream_id, results[s.i]!.nextExpectedVersion);
  }

  private failed(appends: readonly StreamAppend[], e: unknown): never {
    for (const a of appends) this.heads.forget(a.streamId);
    throw toEventStoreError(e);
  }

  async readStream(streamId: string, options: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
    this.assertOpen();
    // Both directions walk es_events_stream_revision_key from one end: a backwards read of one event is O(1).
    const { rows } = await this.db.query<EventRow>(
      options.direction === 'backwards'
        ? `SELECT ${EVENT_COLUMNS} FROM es_events e WHERE e.stream_id = $1 AND e.revision <= $2 ORDER BY e.revision DESC LIMIT $3`
        : `SELECT ${EVENT_COLUMNS} FROM es_events e WHERE e.stream_id = $1 AND e.revision >= $2 ORDER BY e.revision LIMIT $3`,
      [streamId, options.fromRevision ?? (options.direction === 'backwards' ? Number.MAX_SAFE_INTEGER : 0), options.maxCount ?? null],
    );
    return rows.map((r) => toRecordedEvent(r, this.options.catalog));
  }

  async readAll(options: ReadAllOptions = {}): Promise<ReadAllPage> {
    this.assertOpen();
    const after = options.after ?? START;
    const maxCount = options.maxCount ?? DEFAULT_PAGE;
    const q = buildReadAllQuery(after, maxCount, options.types);
    const { rows } = await this.db.query<EventRow & ReadAllRowExtras>(q.text, q.params);
    const eventRows = rows.filter((r) => r.position !== null);
    const cut = eventRows.length > maxCount;
    const events = eventRows.slice(0, maxCount).map((r) => toRecordedEvent(r, this.options.catalog));
    let last = after;
    if (cut) last = events[events.length - 1]!.position;
    else if (rows.length > 0) {
      // Not cut: every readable match up to the head was read, so the reader moves past the events the type
      // filter skipped.
      const { head_commit, head_prepare } = rows[rows.length - 1]!;
      const head = position(head_commit, head_prepare);
      if (isAfter(head, after)) last = head;
    }
    return { events, last, hasMore: cut };
  }

  subscribeToAll(options: SubscribeOptions): Subscription {
    this.assertOpen();
    const sub = startPollingSubscription(
      {
        readAll: (o) => this.readAll(o),
        // A re-established LISTEN wakes too: appends notified while it was down were missed.
        listenForAppends: (wake) => this.db.listen(APPENDED_CHANNEL, wake, (connected) => connected && wake()),
      },
      options,
      { pollIntervalMs: this.options.pollIntervalMs ?? 1000, pageSize: DEFAULT_PAGE },
    );
    return this.subscriptions.add(sub);
  }

  async headPosition(): Promise<GlobalPosition> {
    this.assertOpen();
    const { rows } = await this.db.query<{ commit: string; position: string }>(HEAD_SQL);
    return rows.length === 0 ? START : position(rows[0]!.commit, rows[0]!.position);
  }

  stats(): Promise<EventStoreStats> {
    this.assertOpen();
    return this.counts.stats();
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.subscriptions.stopAll();
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('event store is closed');
  }
}
