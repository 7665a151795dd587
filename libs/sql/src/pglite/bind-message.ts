/**
 * The frontend messages that run a prepared statement once — Bind (unnamed portal, text results), Execute (all rows)
 * and Sync — as one buffer, byte for byte what PGlite's `protocol.serialize.bind/execute/sync` make (PostgreSQL docs,
 * "Message Formats"; `bind-message.spec.ts` compares the two).
 *
 * Why not PGlite's serializer: it measures each text value's UTF-8 length with a JavaScript loop over its characters
 * and grows its buffers by copying, so a 7.3 MB parameter (one indexer window's append) cost ≈ 50 ms to hand over
 * before PostgreSQL saw a byte — on the thread that runs PGlite, the slow stage of a backfill. Here the length is
 * `Buffer.byteLength` and the text is encoded once, straight into the message (docs/benchmarks-journal.md, "PGlite: a
 * parameter's bytes").
 */

/** A parameter as PGlite's serializers leave it: text, bytes (sent in binary format), or null. */
export type BindValue = string | ArrayBufferView | ArrayBuffer | null;

const BIND = 0x42; // 'B'
/** Execute: the unnamed portal, no row limit ('E', length 9, "", 0). */
const EXECUTE = [0x45, 0, 0, 0, 9, 0, 0, 0, 0, 0] as const;
/** Sync ('S', length 4). */
const SYNC = [0x53, 0, 0, 0, 4] as const;

export function bindExecuteSync(statement: string, values: readonly BindValue[]): Uint8Array {
  const bytes = values.map(asBytes);
  const nameLength = Buffer.byteLength(statement, 'utf8');
  let valuesLength = 0;
  for (const v of bytes) valuesLength += 4 + (v === null ? 0 : typeof v === 'string' ? Buffer.byteLength(v, 'utf8') : v.byteLength);
  // length field, portal "" and its NUL, the statement and its NUL, format codes, values, result format count (0)
  const bindLength = 4 + 1 + nameLength + 1 + 2 + 2 * bytes.length + 2 + valuesLength + 2;
  const out = Buffer.allocUnsafe(1 + bindLength + EXECUTE.length + SYNC.length);
  let at = out.writeUInt8(BIND, 0);
  at = out.writeInt32BE(bindLength, at);
  at = out.writeUInt8(0, at); // the unnamed portal
  at += out.write(statement, at, 'utf8');
  at = out.writeUInt8(0, at);
  at = out.writeUInt16BE(bytes.length, at);
  for (const v of bytes) at = out.writeInt16BE(v !== null && typeof v !== 'string' ? 1 : 0, at);
  at = out.writeUInt16BE(bytes.length, at);
  for (const v of bytes) {
    if (v === null) {
      at = out.writeInt32BE(-1, at);
    } else if (typeof v === 'string') {
      const length = out.write(v, at + 4, 'utf8');
      at = out.writeInt32BE(length, at) + length;
    } else {
      at = out.writeInt32BE(v.byteLength, at);
      out.set(v, at);
      at += v.byteLength;
    }
  }
  at = out.writeInt16BE(0, at); // results in text format
  out.set(EXECUTE, at);
  out.set(SYNC, at + EXECUTE.length);
  return out;
}

function asBytes(v: BindValue): string | Uint8Array | null {
  if (v === null || typeof v === 'string') return v;
  if (v instanceof ArrayBuffer) return new Uint8Array(v);
  return new Uint8Array(v.buffer, v.byteOffset, v.byteLength);
}
