import type { EventCatalog } from '@dob/domain';
import type { RecordedEvent } from '../event-store.port';

/** An es_events row as selected by EVENT_COLUMNS (int8 and xid8 arrive as strings from both drivers). */
export interface EventRow {
  position: string;
  commit: string;
  stream_id: string;
  revision: string;
  event_id: string;
  type: string;
  version: number;
  data: unknown;
  metadata: Record<string, unknown> | null;
  /** Milliseconds since the epoch (EVENT_COLUMNS). */
  recorded_ms: number;
}

/** Maps a row to a RecordedEvent, upcasting the payload to the catalog's current version when one is given. */
export function toRecordedEvent(row: EventRow, catalog?: EventCatalog): RecordedEvent {
  const stored = { version: Number(row.version), data: row.data };
  const current = catalog ? catalog.upcast(row.type, stored.version, stored.data) : stored;
  return {
    id: row.event_id,
    streamId: row.stream_id,
    revision: Number(row.revision),
    type: row.type,
    version: current.version,
    data: current.data,
    metadata: row.metadata ?? {},
    position: { commit: BigInt(row.commit), prepare: BigInt(row.position) },
    recordedAt: new Date(row.recorded_ms),
  };
}
