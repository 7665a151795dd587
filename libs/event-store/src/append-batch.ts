import type { EventCatalog } from '@dob/domain';
import type { ExpectedVersion, NewEvent, StreamAppend } from './event-store.port';
import { InvalidEventError } from './errors';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * A validated append batch, adapter-neutral: streams by index, events with their stream index and ordinal. The SQL
 * adapters send it as the JSON document es_append(batch jsonb) takes; the KurrentDB adapter maps it to streams.
 */
export interface AppendBatch {
  /**
   * n = how many events the batch has for the stream; h = its head (last revision) as the appending process last saw
   * it, when it knows one (the SQL adapter's StreamHeads; a head can be behind, never ahead).
   */
  readonly streams: { i: number; stream_id: string; expected: string; n: number; h?: number }[];
  /** Events in batch order (their global order); k = 1-based ordinal within its stream's events in this batch. */
  readonly events: { i: number; k: number; id: string; type: string; version: number; data: unknown; metadata: Record<string, unknown> }[];
  /** No event id occurs twice in the batch: with none stored yet either, revisions are the stream's + k. */
  distinct_ids: boolean;
}

export function encodeExpectedVersion(expected: ExpectedVersion | undefined): string {
  if (expected === undefined || expected === 'any' || expected === 'no_stream' || expected === 'stream_exists') {
    return expected ?? 'any';
  }
  if (!Number.isSafeInteger(expected) || expected < -1) throw new Error(`invalid expected version ${String(expected)}`);
  // Revision -1 means "the stream has no event yet", which is exactly no_stream.
  return expected === -1 ? 'no_stream' : String(expected);
}

function checkEvent(event: NewEvent, catalog: EventCatalog | undefined): void {
  if (typeof event.id !== 'string' || !UUID.test(event.id)) {
    throw new InvalidEventError(event.type, `event id must be a UUID, got ${JSON.stringify(event.id)}`);
  }
  if (typeof event.type !== 'string' || event.type.length === 0) throw new InvalidEventError(String(event.type), 'type is required');
  if (!Number.isInteger(event.version) || event.version < 1) {
    throw new InvalidEventError(event.type, `version must be a positive integer, got ${String(event.version)}`);
  }
  if (catalog) {
    const issues = catalog.validate(event.type, event.version, event.data);
    if (issues !== null) throw new InvalidEventError(event.type, issues);
  }
}

/**
 * Validates every event (ids, catalog) before anything is sent, so an invalid event means nothing is written,
 * and shapes the batch. A stream may appear once per batch: two appends to one stream with their own expected
 * versions have no single all-or-nothing meaning.
 */
export function buildAppendBatch(appends: readonly StreamAppend[], catalog?: EventCatalog): AppendBatch {
  const seen = new Set<string>();
  const ids = new Set<string>();
  const batch: AppendBatch = { streams: [], events: [], distinct_ids: true };
  appends.forEach((append, i) => {
    if (typeof append.streamId !== 'string' || append.streamId.length === 0) throw new Error('streamId is required');
    if (seen.has(append.streamId)) throw new Error(`stream ${append.streamId} appears twice in one appendMany`);
    seen.add(append.streamId);
    batch.streams.push({ i, stream_id: append.streamId, expected: encodeExpectedVersion(append.expectedVersion), n: append.events.length });
    let k = 0;
    for (const event of append.events) {
      checkEvent(event, catalog);
      const id = event.id.toLowerCase();
      if (ids.has(id)) batch.distinct_ids = false;
      ids.add(id);
      batch.events.push({
        i,
        k: ++k,
        id,
        type: event.type,
        version: event.version,
        data: event.data,
        metadata: event.metadata ?? {},
      });
    }
  });
  return batch;
}

/** JSON text of the batch; a payload that is not JSON (a bigint amount, say) is an invalid event, not a crash. */
export function serializeAppendBatch(batch: { readonly events: readonly { readonly type: string }[] }): string {
  try {
    return JSON.stringify(batch);
  } catch (e) {
    const culprit = batch.events.find((ev) => {
      try {
        JSON.stringify(ev);
        return false;
      } catch {
        return true;
      }
    });
    throw new InvalidEventError(culprit?.type ?? '(batch)', `payload is not JSON-serialisable (amounts go as strings): ${(e as Error).message}`);
  }
}
