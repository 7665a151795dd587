import type { SqlExecutor } from '@dob/sql';
import type { ProjectionDefinition } from './projection';
import { readModelView } from './sql/read-model-names';

/**
 * Operators' view of the log: how many events of each type, and when the last one was recorded (e.g. "when did
 * we last see a `claimed`?"). Reads every type.
 */
export const eventTypeCountsProjection: ProjectionDefinition<SqlExecutor> = {
  name: 'event_type_counts',
  version: 1,
  eventTypes: [],
  tables: ['counts'],
  async setup(tx, t) {
    await tx.exec(`CREATE TABLE ${t.counts} (
      event_type       text        PRIMARY KEY,
      events           int8        NOT NULL,
      last_position    text        NOT NULL,
      last_recorded_at timestamptz NOT NULL
    )`);
  },
  async apply(tx, events, t) {
    // One upsert per batch: the batch folded per type first (events arrive in $all order, so the last wins).
    const byType = new Map<string, { event_type: string; events: number; last_position: string; last_recorded_at: string }>();
    for (const e of events) {
      const row = byType.get(e.type) ?? { event_type: e.type, events: 0, last_position: '', last_recorded_at: '' };
      row.events += 1;
      row.last_position = `${e.position.commit}:${e.position.prepare}`;
      row.last_recorded_at = e.recordedAt.toISOString();
      byType.set(e.type, row);
    }
    await tx.query(
      `INSERT INTO ${t.counts} (event_type, events, last_position, last_recorded_at)
       SELECT event_type, events, last_position, last_recorded_at
         FROM jsonb_to_recordset($1::jsonb)
           AS x(event_type text, events int8, last_position text, last_recorded_at timestamptz)
       ON CONFLICT (event_type) DO UPDATE
         SET events = ${t.counts}.events + EXCLUDED.events,
             last_position = EXCLUDED.last_position,
             last_recorded_at = EXCLUDED.last_recorded_at`,
      [JSON.stringify([...byType.values()])],
    );
  },
};

export interface EventTypeCount {
  readonly eventType: string;
  readonly events: number;
  readonly lastPosition: string;
  readonly lastRecordedAt: Date;
}

/** Reads through the stable view, so it works during a rebuild. */
export async function readEventTypeCounts(db: SqlExecutor): Promise<EventTypeCount[]> {
  const { rows } = await db.query<{ event_type: string; events: string; last_position: string; last_recorded_at: Date }>(
    `SELECT event_type, events, last_position, last_recorded_at FROM ${readModelView('event_type_counts', 'counts')}
      ORDER BY events DESC, event_type`,
  );
  return rows.map((r) => ({
    eventType: r.event_type,
    events: Number(r.events),
    lastPosition: r.last_position,
    lastRecordedAt: new Date(r.last_recorded_at),
  }));
}
