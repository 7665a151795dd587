import { PGlite, types, type Transaction } from '@electric-sql/pglite';
import type { SqlDatabase, SqlExecutor, SqlResult } from '../sql.port';
import { assertIdentifier } from '../identifier';
import { PglitePreparedStatements } from './prepared-statements';
import { initPgliteDataDir } from './pglite-initdb';
import { newInMemoryPglite } from './pglite-cluster-image';

export interface PgliteOptions {
  /** Folder for the database files; undefined = in memory. */
  readonly dataDir?: string;
  /** Schema that every statement runs in (created if missing). */
  readonly schema?: string;
}

/**
 * PostgreSQL settings of the embedded database. shared_buffers is 16 MB instead of PostgreSQL's 128 MB: PGlite's
 * buffers live in its WebAssembly memory, which is resident and never returned, and its files are read through the
 * operating system's page cache anyway, so the large pool mostly doubled memory (a reopened folder adds 236 MiB
 * instead of 297, `bench/pglite-memory.bench.ts`; docs/benchmarks-journal.md "Fixed-rate mixed load and RSS").
 */
export const EMBEDDED_POSTGRESQL_CONF: readonly string[] = ['shared_buffers = 16MB'];

/**
 * PGlite (PostgreSQL compiled to WASM, in-process, file-backed): the embedded default, so `npm start` needs no
 * server. It has a single connection; PGlite itself queues concurrent queries and `transaction` holds the
 * connection exclusively, so transactions are serialised — the same SQL stays correct, just without parallelism.
 * int8 is parsed as a string (PGlite's default is a lossy JS number), matching node-postgres.
 */
export async function createPgliteDatabase(options: PgliteOptions = {}): Promise<SqlDatabase> {
  if (options.dataDir) await initPgliteDataDir(options.dataDir, EMBEDDED_POSTGRESQL_CONF);
  const db = options.dataDir ? await openPglite({ dataDir: options.dataDir }) : await newEmbeddedPglite();
  if (options.schema) {
    assertIdentifier(options.schema);
    await db.exec(`CREATE SCHEMA IF NOT EXISTS ${options.schema}; SET search_path TO ${options.schema}, public;`);
  }
  return new PgliteDatabase(db);
}

/**
 * A bare in-memory PGlite as createPgliteDatabase opens one (the embedded settings, int8 as a string), loaded from the
 * just-initialised cluster's image instead of running initdb (pglite-cluster-image.ts): for code and tests that need
 * PGlite itself rather than the SqlDatabase around it.
 */
export function newEmbeddedPglite(): Promise<PGlite> {
  return newInMemoryPglite(openPglite, EMBEDDED_POSTGRESQL_CONF);
}

const openPglite = (where: { dataDir?: string; loadDataDir?: Blob }): Promise<PGlite> =>
  PGlite.create({ ...where, postgresqlconf: [...EMBEDDED_POSTGRESQL_CONF], parsers: { [types.INT8]: (v: string) => v } });

const wrap = (q: Pick<PGlite | Transaction, 'query' | 'exec'>): SqlExecutor => ({
  async query<R>(text: string, params?: readonly unknown[]): Promise<SqlResult<R>> {
    const r = await q.query<R>(text, params as unknown[] | undefined);
    return { rows: r.rows, rowCount: r.affectedRows ?? r.rows.length };
  },
  async exec(text: string): Promise<void> {
    await q.exec(text);
  },
  // PGlite has no client stream: COPY reads the text as a blob from its virtual '/dev/blob' (QueryOptions.blob).
  async copyIn(table: string, columns: readonly string[], text: string): Promise<void> {
    assertIdentifier(table);
    for (const c of columns) assertIdentifier(c);
    await q.query(`COPY ${table} (${columns.join(', ')}) FROM '/dev/blob'`, [], { blob: new Blob([text]) });
  },
});

/**
 * Reads (a plain SELECT or WITH … SELECT) are the statements worth keeping a plan for; a statement with parameters
 * goes the same way whatever it is, since that path hands its values over fast (bind-message.ts): PGlite's own
 * serializer took ≈ 50 ms over a 7.3 MB one, such as an indexer window's batch or a bulk INSERT … json_to_recordset($1).
 */
const READ = /^\s*(SELECT|WITH)\b/i;
const hasParameters = (params: readonly unknown[] | undefined): params is readonly unknown[] => params !== undefined && params.length > 0;

class PgliteDatabase implements SqlDatabase {
  readonly kind = 'pglite' as const;
  private readonly direct: SqlExecutor;
  private readonly prepared: PglitePreparedStatements;

  constructor(private readonly db: PGlite) {
    this.direct = wrap(db);
    this.prepared = new PglitePreparedStatements(db);
  }

  query<R = Record<string, unknown>>(text: string, params?: readonly unknown[]): Promise<SqlResult<R>> {
    return READ.test(text) || hasParameters(params) ? this.prepared.query<R>(text, params) : this.direct.query<R>(text, params);
  }

  exec(text: string): Promise<void> {
    return this.direct.exec(text);
  }

  copyIn(table: string, columns: readonly string[], text: string): Promise<void> {
    return this.direct.copyIn(table, columns, text);
  }

  transaction<T>(fn: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    return this.db.transaction((tx) => fn(this.inTransaction(tx)));
  }

  /** A transaction's statements with parameters are handed over fast too (a read model's write-outs: many MB). */
  private inTransaction(tx: Transaction): SqlExecutor {
    const direct = wrap(tx);
    return {
      ...direct,
      query: <R>(text: string, params?: readonly unknown[]) =>
        hasParameters(params) && !tx.closed ? this.prepared.queryInTransaction<R>(text, params) : direct.query<R>(text, params),
    };
  }

  async listen(channel: string, onNotify: (payload: string) => void): Promise<() => Promise<void>> {
    assertIdentifier(channel);
    return this.db.listen(channel, onNotify);
  }

  async close(): Promise<void> {
    if (!this.db.closed) await this.db.close();
  }
}
