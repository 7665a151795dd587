import { readModelView } from '@dob/projections';

/** Stable views of the read models (re-pointed atomically on a rebuild switch; libs/projections SQL store). */
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
 * give, kept up to date by the members projection (its `stats` collection) instead of aggregated per request.
 */
export const MEMBER_STATS = `SELECT network_id, pool, member_count, total_shares FROM ${V.memberStats} WHERE member_count > 0`;

/** SQL to join a token's learned symbol: `LEFT JOIN <tokens view> <alias> ON <alias>.network_id = … AND …`. */
export function joinLearnedToken(alias: string, networkId: string, address: string): string {
  return `LEFT JOIN ${V.tokens} ${alias} ON ${alias}.network_id = ${networkId} AND ${alias}.address = ${address}`;
}

/**
 * Round status is a function of the clock (docs/decisions.md#d4): pending before claimable_from, completed from then until
 * expires_at, expired after it (the contract refuses claims with RoundExpired once now > expires_at and allows
 * reclaim only then). V1 rounds have no expiry. `$NOW` is replaced by the query's parameter.
 */
export const ROUND_STATUS_SQL = `CASE WHEN r.claimable_from > $NOW THEN 'pending'
  WHEN r.expires_at IS NOT NULL AND r.expires_at < $NOW THEN 'expired' ELSE 'completed' END`;

/** Builds a WHERE clause's conditions with numbered parameters after the given ones. */
export class Conditions {
  readonly where: string[] = [];
  constructor(readonly params: unknown[] = []) {}

  /** `sql` with `?` where the value goes. */
  add(sql: string, value: unknown): this {
    this.params.push(value);
    this.where.push(sql.replaceAll('?', `$${this.params.length}`));
    return this;
  }

  /** ` AND a AND b` (empty if none). */
  and(): string {
    return this.where.length ? ` AND ${this.where.join(' AND ')}` : '';
  }
}
