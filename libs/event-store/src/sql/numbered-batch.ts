import { serializeAppendBatch, type AppendBatch } from '../append-batch';

/** What an append returns per stream; when the client numbered the batch, it is known before the batch is sent. */
export interface NumberedStream {
  readonly nextExpectedVersion: number;
  readonly appended: number;
}

/**
 * es_append version 5's client-revisions batch: each event with its stream and revision, numbered here from the
 * heads this process's committed appends reached, so the function only takes its locks and INSERTs. Only when every
 * stream of the batch writes, has a known head and expects what that head allows; otherwise null (es_append numbers
 * the batch itself). A head is never ahead of the stored one, only behind — then the INSERT collides with a stored
 * revision and the caller sends the plain batch. An expected version that fails against a known head may rest on a
 * head that is behind, so it too goes the plain way, where es_append checks it against the stored head.
 */
export function numberBatch(batch: AppendBatch, headOf: (streamId: string) => number | undefined): { json: string; results: NumberedStream[] } | null {
  if (!batch.distinct_ids) return null;
  const heads: number[] = [];
  for (const s of batch.streams) {
    const head = headOf(s.stream_id);
    if (head === undefined || s.n === 0 || !expectationHolds(s.expected, head)) return null;
    heads.push(head);
  }
  const events = batch.events.map((e) => ({
    s: batch.streams[e.i]!.stream_id,
    r: heads[e.i]! + e.k,
    id: e.id,
    type: e.type,
    version: e.version,
    data: e.data,
    metadata: e.metadata,
  }));
  const numbered = { streams: batch.streams.map((s) => ({ stream_id: s.stream_id })), events, client_revisions: true };
  const json = serializeAppendBatch(numbered);
  return { json, results: batch.streams.map((s) => ({ nextExpectedVersion: heads[s.i]! + s.n, appended: s.n })) };
}

/** encodeExpectedVersion's forms against a known head (≥ 0: a known head is a stream that exists). */
function expectationHolds(expected: string, head: number): boolean {
  if (expected === 'any' || expected === 'stream_exists') return true;
  if (expected === 'no_stream') return false;
  return Number(expected) === head;
}
