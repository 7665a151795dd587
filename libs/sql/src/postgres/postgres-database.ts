import { Client, Pool, type PoolClient } from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import type { SqlDatabase, SqlExecutor, SqlResult } from '../sql.port';
import { assertIdentifier } from '../identifier';
import { isConnectionError, toDependencyError } from './connection-errors';
import { listenKeptAlive } from './postgres-listener';

export interface PostgresOptions {
  readonly connectionString: string;
  readonly schema?: string;
  /** Pool size. Default DEFAULT_POSTGRES_POOL_SIZE. */
  readonly maxConnections?: number;
  /**
   * Longest wait for a connection (a new one, or a free one from a busy pool) before the statement fails as
   * PostgreSQL unavailable (503 + Retry-After at the API): a server that went away must not hold requests.
   */
  readonly connectTimeoutMs?: number;
}

/**
 * Default pool size. A projector catching up holds up to three connections per projection at once (the next page
 * being read, the page before committing, the documents a page reduced ahead still reads: docs/projections.md), so
 * eight read models want about 24; with 10, busy workers waited past connectTimeoutMs for a free connection and
 * failed their batches (issue 33's catch-up bench). PostgreSQL allows 100 by default.
 */
export const DEFAULT_POSTGRES_POOL_SIZE = 24;

/** Default connectTimeoutMs: within the 2 s an API request may wait for a dependency (issue 31). */
export const POSTGRES_CONNECT_TIMEOUT_MS = 1000;

/**
 * PostgreSQL through node-postgres (`pg`), the de-facto driver: pooled connections, real concurrent transactions.
 * A schema option scopes every connection's search_path, which is how tests isolate themselves on one server.
 */
export async function createPostgresDatabase(options: PostgresOptions): Promise<SqlDatabase> {
  const schema = options.schema ? assertIdentifier(options.schema) : undefined;
  if (schema) {
    const c = new Client({ connectionString: options.connectionString, connectionTimeoutMillis: options.connectTimeoutMs ?? POSTGRES_CONNECT_TIMEOUT_MS });
    await c.connect();
    try {
      await c.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
    } catch (e) {
      // Two processes racing to create the same schema: the loser sees a unique violation; the schema exists.
      if ((e as { code?: string }).code !== '23505') throw e;
    } finally {
      await c.end();
    }
  }
  const pool = new Pool({
    connectionString: options.connectionString,
    max: options.maxConnections ?? DEFAULT_POSTGRES_POOL_SIZE,
    connectionTimeoutMillis: options.connectTimeoutMs ?? POSTGRES_CONNECT_TIMEOUT_MS,
    options: schema ? `-c search_path=${schema},public` : undefined,
  });
  // An idle client that errors (server restart) must not crash the process; the pool replaces it.
  pool.on('error', () => undefined);
  return new PostgresDatabase(pool, options, schema);
}

const wrap = (c: PoolClient): SqlExecutor => ({
  async query<R>(text: string, params?: readonly unknown[]): Promise<SqlResult<R>> {
    const r = await c.query(text, params as unknown[] | undefined);
    return { rows: r.rows as R[], rowCount: r.rowCount ?? r.rows.length };
  },
  async exec(text: string): Promise<void> {
    await c.query(text);
  },
  copyIn: (table, columns, text) => copyInto(c, table, columns, text),
});

/**
 * COPY … FROM STDIN through pg-copy-streams (node-postgres' own COPY companion): the statement, then the text as
 * CopyData. The stream settles once the server answered (CommandComplete, or the error that ends the COPY).
 */
async function copyInto(client: PoolClient, table: string, columns: readonly string[], text: string): Promise<void> {
  assertIdentifier(table);
  for (const c of columns) assertIdentifier(c);
  const stream = client.query(copyFrom(`COPY ${table} (${columns.join(', ')}) FROM STDIN`));
  await new Promise<void>((resolve, reject) => {
    stream.on('error', reject);
    stream.on('finish', resolve);
    stream.end(text);
  });
}

class PostgresDatabase implements SqlDatabase {
  readonly kind = 'postgres' as const;

  constructor(
    private readonly pool: Pool,
    private readonly options: PostgresOptions,
    private readonly schema: string | undefined,
  ) {}

  query<R = Record<string, unknown>>(text: string, params?: readonly unknown[]): Promise<SqlResult<R>> {
    return this.onPooledConnection((client) => wrap(client).query<R>(text, params));
  }

  exec(text: string): Promise<void> {
    return this.onPooledConnection((client) => wrap(client).exec(text));
  }

  copyIn(table: string, columns: readonly string[], text: string): Promise<void> {
    return this.onPooledConnection((client) => copyInto(client, table, columns, text));
  }

  transaction<T>(fn: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    return this.onPooledConnection(async (client, discard) => {
      try {
        await client.query('BEGIN');
        const result = await fn(wrap(client));
        await client.query('COMMIT');
        return result;
      } catch (e) {
        // A session whose transaction cannot be rolled back is in no state to be lent out again.
        await client.query('ROLLBACK').catch(discard);
        throw e;
      }
    });
  }

  /**
   * Runs fn on a pooled connection, then returns it to the pool unless it broke. Not pool.query: pg-pool releases
   * the client with the query's error, and a client released with any error is closed (pg-pool `_release`), so
   * every refused statement — an expected-version conflict, a unique violation the caller handles — cost a new
   * connection and a cold backend (its plans, its compiled functions): 10–20 ms more for the next statement,
   * measured on es_append. An error the server reported leaves the session usable. A connection that ended is not
   * queryable, and pg-pool drops such a client on release by itself; an 'error' event while checked out (the
   * server ending the session, e.g. idle_in_transaction_session_timeout), a failed ROLLBACK, or a statement that
   * failed as a lost connection discards it here. The last because a session the server ends while a statement runs
   * (57P01: a restart, pg_terminate_backend) fails that statement first and closes the socket after, so the client
   * was still "queryable" at release and went back to the pool, and the next caller got it and failed with
   * "Connection terminated unexpectedly" (a 503) from a server that was up: postgres-faults.int-spec.ts.
   */
  private async onPooledConnection<T>(fn: (client: PoolClient, discard: (e: Error) => void) => Promise<T>): Promise<T> {
    try {
      return await this.onPooledClient(fn);
    } catch (e) {
      throw toDependencyError(e); // a lost server: 503 for whoever asked, not a driver error to recognise
    }
  }

  private async onPooledClient<T>(fn: (client: PoolClient, discard: (e: Error) => void) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    let broken: Error | undefined;
    const discard = (e: Error) => {
      broken = e;
    };
    client.on('error', discard);
    try {
      return await fn(client, discard);
    } catch (e) {
      if (isConnectionError(e)) discard(e as Error);
      throw e;
    } finally {
      client.off('error', discard);
      client.release(broken); // a broken connection is discarded, not returned to the pool
    }
  }

  listen(channel: string, onNotify: (payload: string) => void, onConnection?: (connected: boolean) => void): Promise<() => Promise<void>> {
    assertIdentifier(channel);
    const config = {
      connectionString: this.options.connectionString,
      connectionTimeoutMillis: this.options.connectTimeoutMs ?? POSTGRES_CONNECT_TIMEOUT_MS,
      options: this.schema ? `-c search_path=${this.schema},public` : undefined,
    };
    return listenKeptAlive(config, channel, onNotify, onConnection).catch((e: unknown) => {
      throw toDependencyError(e);
    });
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}
