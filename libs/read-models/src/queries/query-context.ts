import type { SqlExecutor } from '@dob/sql';
import { TokenDirectory, type TokenInfo } from './token-directory';

/** What the query services need: a SQL connection to the read models, the clock, and configured tokens. */
export interface ReadQueryDeps {
  readonly db: SqlExecutor;
  /** Query-time rules (round status, rolling volume windows, is_active) read this clock. */
  readonly now?: () => Date;
  /** Known tokens (symbol, decimals) per network; they win over symbols learned from chain events. */
  readonly tokens?: readonly TokenInfo[];
}

export interface QueryContext {
  readonly db: SqlExecutor;
  readonly now: () => Date;
  readonly tokens: TokenDirectory;
}

export function queryContext(deps: ReadQueryDeps): QueryContext {
  return { db: deps.db, now: deps.now ?? (() => new Date()), tokens: new TokenDirectory(deps.db, deps.tokens ?? []) };
}

/**
 * The stable view a projection's table is read through: `rm_<projection>_<table>` (libs/projections
 * read-model-names). Spelled here rather than imported so this lib needs only types from @dob/projections, and the
 * projection registry can import this lib without a require cycle.
 */
export const readModelView = (projection: string, table: string): string => `rm_${projection}_${table}`;

/** Stable views of the read models (re-pointed atomically on a rebuild switch). */
export const V = {
  pools: readModelView('pools', 'pools'),
  members: readModelView('pool_members', 'members'),
  memberStats: readModelView('pool_members', 'stats'),
  rounds: readModelView('distribution_rounds', 'rounds'),
  claims: readModelView('distribution_rounds', 'claims'),
  withdrawals: readModelView('distribution_rounds', 'withdrawals'),
  events: readModelView('pool_events', 'events'),
  listings: readModelView('marketplace', 'listings'),
  sales: readModelView('marketplace', 'sales'),
  campaigns: readModelView('crowdfunding', 'campaigns'),
  contributors: readModelView('crowdfunding', 'contributors'),
  tokens: readModelView('tokens', 'tokens'),
  history: readModelView('wallet_history', 'entries'),
} as const;

/**
 * Per-pool member count and share supply (holders with a positive balance): the rows
 * `SELECT network_id, pool, COUNT(*), SUM(shares) FROM members WHERE shares > 0 GROUP BY network_id, pool` would
 * give, kept up to date by the members projection (its `stats` table) instead of aggregated per request.
 */
export const MEMBER_STATS = `SELECT network_id, pool, member_count, total_shares FROM ${V.memberStats} WHERE member_count > 0`;

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

export const offsetOf = (p: Paging): number => (p.page - 1) * p.limit;

/** Integer share counts: within 2^53 for every Dob share scale (10,000 or 1,000,000 per pool). */
export const int = (v: string | number | null | undefined): number => (v === null || v === undefined ? 0 : Number(v));
