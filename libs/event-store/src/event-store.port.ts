import type { ChainEventData, ChainEventType } from '@dob/domain';
/**
 * Event store port. Shaped so an EventStoreDB adapter fits without reshaping:
 * - global positions are {commit, prepare} pairs, like ESDB's `$all` Position;
 *   the SQL adapters map them to (transaction id, sequence) which also makes reading all gap-safe;
 * - stream revisions start at 0, expected versions mirror ESDB's (`any`, `no_stream`, `stream_exists`, a revision);
 * - event ids are UUIDs (deterministic v5 ids for chain-derived events), so re-appends are idempotent.
 */

export interface GlobalPosition {
  /** SQL: the appending transaction's xid8. ESDB: commit position. */
  readonly commit: bigint;
  /** SQL: the global sequence number. ESDB: prepare position. */
  readonly prepare: bigint;
}

export const START: GlobalPosition = Object.freeze({ commit: -1n, prepare: -1n });

export type ExpectedVersion = 'any' | 'no_stream' | 'stream_exists' | number;

export interface NewEvent<T = unknown> {
  /** UUID; appending an id that is already stored is a no-op. */
  readonly id: string;
  readonly type: string;
  /** Schema version of `data` in the domain catalog. */
  readonly version: number;
  readonly data: T;
  readonly metadata?: Record<string, unknown>;
}

export interface RecordedEvent<T = unknown> {
  readonly id: string;
  readonly streamId: string;
  /** 0-based revision within the stream. */
  readonly revision: number;
  readonly type: string;
  readonly version: number;
  readonly data: T;
  readonly metadata: Record<string, unknown>;
  readonly position: GlobalPosition;
  readonly recordedAt: Date;
}

/** A stored event of one catalog type: `RecordedOf<'PoolLocked'>` has a PoolLocked payload as `data`. */
export type RecordedOf<K extends ChainEventType> = RecordedEvent<ChainEventData[K]> & { readonly type: K };

/**
 * Stored chain events of the types K (all by default) as a discriminated union on `type`: `switch (e.type)` narrows
 * `e.data`. A RecordedEvent becomes one through `isChainEvent` (libs/domain).
 */
export type RecordedChainEvent<K extends ChainEventType = ChainEventType> = { [P in K]: RecordedOf<P> }[K];

export interface StreamAppend {
  readonly streamId: string;
  readonly events: readonly NewEvent[];
  readonly expectedVersion?: ExpectedVersion;
}

export interface AppendResult {
  /** Revision of the stream's last event after the append (-1 if the stream is still empty). */
  readonly nextExpectedVersion: number;
  /** Ids actually written (ids already stored are skipped). */
  readonly appended: number;
}

export interface ReadAllPage {
  readonly events: readonly RecordedEvent[];
  /**
   * Where the next read continues: the last event returned when the page was cut, else the last position looked at
   * (a filtered read moves past the events it skipped), or the `after` given when nothing was readable.
   */
  readonly last: GlobalPosition;
  /**
   * True when the page stopped before the readable head, so more may be readable right now: cut by maxCount, or —
   * a filtered read on SQL — at the end of the rows it scans per page, possibly with fewer events (even none).
   */
  readonly hasMore: boolean;
}

export interface ReadStreamOptions {
  readonly fromRevision?: number;
  readonly maxCount?: number;
  readonly direction?: 'forwards' | 'backwards';
}

export interface ReadAllOptions {
  readonly after?: GlobalPosition;
  readonly maxCount?: number;
  /** Only these event types (server-side filter); positions still advance past skipped events. */
  readonly types?: readonly string[];
}

export interface Subscription {
  stop(): Promise<void>;
  /** Resolves when the subscription ends (stopped or failed). Rejects with the handler's error. */
  readonly done: Promise<void>;
}

export interface SubscribeOptions extends ReadAllOptions {
  /** Called with each page in order; the next page is read only after it resolves. */
  readonly onPage: (page: ReadAllPage) => Promise<void>;
  /** Called once whenever the subscriber has read everything committed so far. */
  readonly onCaughtUp?: (last: GlobalPosition) => void;
  readonly pollIntervalMs?: number;
}

export interface EventStoreStats {
  readonly events: number;
  readonly streams: number;
  readonly last: GlobalPosition;
  readonly byType: Record<string, number>;
}

export interface EventStore {
  /** Appends to one stream; throws WrongExpectedVersionError on a conflict. */
  appendToStream(streamId: string, events: readonly NewEvent[], expectedVersion?: ExpectedVersion): Promise<AppendResult>;
  /** Appends to several streams in one round trip and one transaction: all or nothing. */
  appendMany(appends: readonly StreamAppend[]): Promise<AppendResult[]>;
  /**
   * A stream's events in revision order from `fromRevision` (default 0), or with `direction: 'backwards'` in
   * reverse order from `fromRevision` (default: the last event) down — `{ direction: 'backwards', maxCount: 1 }`
   * is the stream's last event, read without touching the rest.
   */
  readStream(streamId: string, options?: ReadStreamOptions): Promise<RecordedEvent[]>;
  /** Gap-safe: only events of transactions that can no longer be followed by an earlier-positioned commit. */
  readAll(options?: ReadAllOptions): Promise<ReadAllPage>;
  subscribeToAll(options: SubscribeOptions): Subscription;
  /** The head of `$all` as readable now (gap-safe), for lag computation. */
  headPosition(): Promise<GlobalPosition>;
  stats(): Promise<EventStoreStats>;
  close(): Promise<void>;
}

export const EVENT_STORE = Symbol('EVENT_STORE');
