/**
 * The one SQL dialect shared by every relational adapter (PGlite embedded, PostgreSQL server).
 * Stores own their migrations and speak plain PostgreSQL through this port, so the same SQL runs in both.
 */
export interface SqlResult<R> {
  rows: R[];
  rowCount: number;
}

export interface SqlExecutor {
  query<R = Record<string, unknown>>(text: string, params?: readonly unknown[]): Promise<SqlResult<R>>;
  /** Several statements without parameters (migrations). */
  exec(text: string): Promise<void>;
  /**
   * Adds rows to `table (columns)` with COPY … FROM in its text format (copyText): the cheapest way into a table for
   * many new rows (a rebuild's fresh documents; no conflict handling: a duplicate key fails the whole COPY).
   */
  copyIn(table: string, columns: readonly string[], text: string): Promise<void>;
}

/** On a server, a lost connection leaves every method as AppError SERVICE_UNAVAILABLE (dependency postgresql). */
export interface SqlDatabase extends SqlExecutor {
  readonly kind: 'pglite' | 'postgres';
  /** Runs fn in one transaction (BEGIN … COMMIT, ROLLBACK on throw). */
  transaction<T>(fn: (tx: SqlExecutor) => Promise<T>): Promise<T>;
  /**
   * LISTEN on a channel; returns an unsubscribe function. Used to wake pollers, never as the only signal. A server's
   * LISTEN connection is kept alive: `onConnection(false)` when it is lost (notifications are missed from then on),
   * `onConnection(true)` once LISTEN is active again — a caller keeping state until the next notification drops it
   * at both. Embedded PGlite never loses it on the caller's thread; on a thread of its own it loses it only with the
   * thread (`onConnection(false)`, never `true` again: every call fails from then on).
   */
  listen(channel: string, onNotify: (payload: string) => void, onConnection?: (connected: boolean) => void): Promise<() => Promise<void>>;
  /**
   * Why this database can no longer answer, once it never will again (the embedded PGlite's own thread died), else
   * null; known without a query, so a health check never queues behind a long statement on PGlite's one connection.
   * Absent where a failure is only ever transient (a server: its calls fail while it is away).
   */
  readonly failed?: () => Error | null;
  close(): Promise<void>;
}
