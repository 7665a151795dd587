import type { SqlExecutor } from '@dob/sql';
import { createSqlReadModelReader } from '../sql/sql-read-model-reader';
import type { ReadModelReader } from './read-model-reader.port';
import { TokenDirectory, type TokenInfo } from './token-directory';

/** What the query services need: a reader of the read models, the clock, and configured tokens. */
export type ReadQueryDeps = (
  | {
      /** The read models' store (createSqlReadModelReader, createMongoReadModelReader). */
      readonly reader: ReadModelReader;
    }
  | {
      /** Shorthand for `reader: createSqlReadModelReader(db)`: read models in this SQL database. */
      readonly db: SqlExecutor;
    }
) & {
  /** Query-time rules (round status, rolling volume windows, is_active) read this clock. */
  readonly now?: () => Date;
  /** Known tokens (symbol, decimals) per network; they win over symbols learned from chain events. */
  readonly tokens?: readonly TokenInfo[];
};

export interface QueryContext {
  readonly reader: ReadModelReader;
  readonly now: () => Date;
  readonly tokens: TokenDirectory;
}

export function queryContext(deps: ReadQueryDeps): QueryContext {
  const reader = 'reader' in deps ? deps.reader : createSqlReadModelReader(deps.db);
  return { reader, now: deps.now ?? (() => new Date()), tokens: new TokenDirectory(reader, deps.tokens ?? []) };
}

/** ISO 8601 UTC without milliseconds when they are zero ("2026-02-15T10:00:00Z", as Dob shows). */
export function iso(value: Date | string | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  const d = value instanceof Date ? value : new Date(value);
  return d.toISOString().replace('.000Z', 'Z');
}

export interface Paging {
  readonly page: number;
  readonly limit: number;
}

export interface Page<T> {
  readonly items: T[];
  readonly page: number;
  readonly limit: number;
  readonly total: number;
}

/** The rows a page covers. */
export const sliceOf = (p: Paging): { limit: number; offset: number } => ({ limit: p.limit, offset: (p.page - 1) * p.limit });

/** Integer share counts: within 2^53 for every Dob share scale (10,000 or 1,000,000 per pool). */
export const int = (v: string | number | null | undefined): number => (v === null || v === undefined ? 0 : Number(v));
