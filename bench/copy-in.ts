/**
 * `COPY … FROM STDIN` through node-postgres without another dependency: a Submittable (the interface pg's Client
 * runs any query object through) that sends the statement, then the data as CopyData messages when the server
 * answers CopyInResponse. The raw-load baseline of the rebuild bench: the cheapest way to put rows into a table.
 */
import type { Client } from 'pg';

/** What pg's Connection offers a Submittable (pg/lib/connection.js). */
interface PgConnection {
  query(text: string): void;
  sendCopyFromChunk(chunk: Buffer): void;
  endCopyFrom(): void;
}

class CopyIn {
  private error: Error | null = null;
  readonly done: Promise<void>;
  private settle!: { resolve: () => void; reject: (e: Error) => void };

  constructor(
    private readonly text: string,
    private readonly chunks: readonly Buffer[],
  ) {
    this.done = new Promise((resolve, reject) => (this.settle = { resolve, reject }));
  }

  submit(connection: PgConnection): void {
    connection.query(this.text);
  }

  handleCopyInResponse(connection: PgConnection): void {
    for (const chunk of this.chunks) connection.sendCopyFromChunk(chunk);
    connection.endCopyFrom();
  }

  handleError(e: Error): void {
    this.error = e;
  }

  handleReadyForQuery(): void {
    if (this.error) this.settle.reject(this.error);
    else this.settle.resolve();
  }

  handleCommandComplete(): void {}
  handleRowDescription(): void {}
  handleDataRow(): void {}
  handleEmptyQuery(): void {}
}

/** One value in COPY's text format: `\N` for null, backslash escapes for the characters the format reserves. */
export function copyValue(v: string | number | bigint | boolean | null): string {
  if (v === null) return '\\N';
  if (typeof v === 'boolean') return v ? 't' : 'f';
  return String(v).replace(/[\\\t\n\r]/g, (c) => ({ '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' })[c]!);
}

/** Rows as COPY text, in chunks of about 1 MiB. */
export function copyChunks(rows: Iterable<readonly (string | number | bigint | boolean | null)[]>): Buffer[] {
  const chunks: Buffer[] = [];
  let lines: string[] = [];
  let size = 0;
  for (const row of rows) {
    const line = `${row.map(copyValue).join('\t')}\n`;
    lines.push(line);
    size += line.length;
    if (size > 1 << 20) {
      chunks.push(Buffer.from(lines.join('')));
      lines = [];
      size = 0;
    }
  }
  if (lines.length) chunks.push(Buffer.from(lines.join('')));
  return chunks;
}

/** Loads prepared COPY text into `table (columns)`. */
export async function copyIn(client: Client, table: string, columns: readonly string[], chunks: readonly Buffer[]): Promise<void> {
  const copy = new CopyIn(`COPY ${table} (${columns.join(', ')}) FROM STDIN`, chunks);
  // pg runs any object with submit() as a query; its result is ours to await.
  void (client.query as unknown as (q: CopyIn) => unknown)(copy);
  await copy.done;
}
