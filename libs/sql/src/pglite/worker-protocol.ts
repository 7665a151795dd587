/**
 * Messages between createPgliteWorkerDatabase and its worker thread (pglite-worker.ts). Every request has an id
 * that its one reply carries; a listener's notifications come as further replies with the `listen` request's id.
 */
export type WorkerRequest =
  | { readonly id: number; readonly op: 'query'; readonly tx?: number; readonly text: string; readonly params?: readonly unknown[] }
  | { readonly id: number; readonly op: 'exec'; readonly tx?: number; readonly text: string }
  | { readonly id: number; readonly op: 'copyIn'; readonly tx?: number; readonly table: string; readonly columns: readonly string[]; readonly text: string }
  /** Opens a transaction whose id is this request's id; answered once it is open. */
  | { readonly id: number; readonly op: 'begin' }
  /** Commits or rolls back transaction `tx`; answered once PGlite has. */
  | { readonly id: number; readonly op: 'end'; readonly tx: number; readonly commit: boolean }
  | { readonly id: number; readonly op: 'listen'; readonly channel: string }
  | { readonly id: number; readonly op: 'unlisten'; readonly listener: number }
  | { readonly id: number; readonly op: 'close' };

export interface WorkerReply {
  readonly id: number;
  readonly result?: unknown;
  readonly error?: WireError;
  /** A NOTIFY's payload, for the listener registered by request `id`. */
  readonly notification?: string;
}

/** An error as it crosses the thread boundary: its message and the PostgreSQL fields the stores read (code, constraint…). */
export interface WireError {
  readonly message: string;
  readonly fields: Record<string, string | number | undefined>;
}

/** PostgreSQL's error fields (PGlite's DatabaseError carries node-postgres's names). */
const FIELDS = ['code', 'constraint', 'detail', 'hint', 'schema', 'table', 'column', 'dataType', 'severity', 'where', 'position'] as const;

export function toWireError(e: unknown): WireError {
  const source = (e ?? {}) as Record<string, unknown>;
  const fields: Record<string, string | number | undefined> = {};
  for (const f of FIELDS) {
    const v = source[f];
    if (typeof v === 'string' || typeof v === 'number') fields[f] = v;
  }
  return { message: e instanceof Error ? e.message : String(e), fields };
}

/** The error again on this side of the boundary, with the same message and fields (its stack is this side's). */
export function fromWireError(w: WireError): Error {
  return Object.assign(new Error(w.message), w.fields);
}
