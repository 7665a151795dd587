/**
 * Rows in COPY's text format (PostgreSQL docs, "COPY", File Formats → Text Format): one line a row, columns
 * separated by a tab, `\N` for null, and a backslash escaping the characters the format reserves. Values are what the
 * column's input function reads: numbers and bigints as decimal text, booleans as t/f, timestamps as ISO 8601 text.
 */
export type CopyValue = string | number | bigint | boolean | null;

const RESERVED = /[\\\t\n\r]/;
const RESERVED_ALL = /[\\\t\n\r]/g;
const ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };

/** One value in COPY's text format. */
export function copyValue(v: CopyValue): string {
  if (v === null) return '\\N';
  if (typeof v === 'boolean') return v ? 't' : 'f';
  if (typeof v !== 'string') return String(v);
  // Most values (addresses, hashes, amounts) hold nothing to escape: test once instead of replacing always.
  return RESERVED.test(v) ? v.replace(RESERVED_ALL, (c) => ESCAPES[c]!) : v;
}

/** Rows as one COPY text, each row's values in the order of the COPY's column list. */
export function copyText(rows: Iterable<readonly CopyValue[]>): string {
  let text = '';
  for (const row of rows) {
    for (let i = 0; i < row.length; i++) text += (i ? '\t' : '') + copyValue(row[i]!);
    text += '\n';
  }
  return text;
}
