import { WrongExpectedVersionError } from '../errors';
import { WRONG_EXPECTED_VERSION_SQLSTATE } from './migrations';

interface PgError {
  code?: string;
  detail?: string;
  constraint?: string;
  message?: string;
}

const UNIQUE_VIOLATION = '23505';

/** A duplicate event id from a concurrent batch: retrying the append makes it an idempotent skip. */
export function isConcurrentDuplicateId(e: unknown): boolean {
  const err = e as PgError;
  return err?.code === UNIQUE_VIOLATION && (err.constraint === 'es_events_event_id_key' || /es_events_event_id_key/.test(err.message ?? ''));
}

/**
 * es_append refused a batch the client numbered (client_revisions): a head that was behind, or an id stored
 * already. Sent again plain, it is decided by es_append's other paths.
 */
export function isNumberedBatchRefusal(e: unknown): boolean {
  return (e as PgError)?.code === UNIQUE_VIOLATION;
}

/**
 * Turns the database's refusals into the port's typed errors: es_append's own conflict (raised under the stream
 * lock with a JSON detail) and, as a backstop, the unique (stream_id, revision) violation two racing writers
 * would hit if they ever got past the lock.
 */
export function toEventStoreError(e: unknown): unknown {
  const err = e as PgError;
  if (err?.code === WRONG_EXPECTED_VERSION_SQLSTATE) {
    try {
      const d = JSON.parse(err.detail ?? '') as { streamId: string; expected: string; actual: number | string };
      return new WrongExpectedVersionError(d.streamId, d.expected, Number(d.actual));
    } catch {
      return new WrongExpectedVersionError('(unknown)', '(unknown)', -1);
    }
  }
  if (err?.code === UNIQUE_VIOLATION && (err.constraint === 'es_events_stream_revision_key' || /es_events_stream_revision_key/.test(err.message ?? ''))) {
    // detail: Key (stream_id, revision)=(pool-1, 3) already exists.
    const m = /\)=\((.*), (\d+)\) already exists/.exec(err.detail ?? '');
    return new WrongExpectedVersionError(m?.[1] ?? '(unknown)', 'any', m ? Number(m[2]) - 1 : -1);
  }
  return e;
}
