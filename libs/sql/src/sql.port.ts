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
}

export interface SqlDatabase extends SqlExecutor {
  readonly kind: 'pglite' | 'postgres';
  /** Runs fn in one transaction (BEGIN … COMMIT, ROLLBACK on throw). */
  transaction<T>(fn: (tx: SqlExecutor) => Promise<T>): Promise<T>;
  /** LISTEN on a channel; returns an unsubscribe function. Used to wake pollers, never as the only signal. */
  listen(channel: string, onNotify: (payload: string) => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
}
