import type { ProjectionTables } from '@dob/projections';
import type { TokenInfo } from '@dob/read-models';
import type { SqlExecutor } from '@dob/sql';
import { STELLAR_TOKEN_DECIMALS } from './money';
import { UNKNOWN_POOL, type PoolLabel, type TokenLabel } from './payloads';

/**
 * The small lookup tables the fan-out keeps so payloads carry names, symbols, totals and sale ids. They are slot
 * tables of the fan-out projection (rebuilt with it), written in the same transaction as its checkpoint.
 */
export const LOOKUP_TABLES = ['pools', 'tokens', 'campaigns', 'contributors', 'listings'] as const;

export async function createLookupTables(tx: SqlExecutor, t: ProjectionTables): Promise<void> {
  await tx.exec(`
    CREATE TABLE ${t.pools} (
      network_id int4 NOT NULL, pool text NOT NULL,
      name text, ticker text, access_type text, distribution_type text,
      pool_version text, pt_supply numeric NOT NULL DEFAULT 0, v1_rounds int4 NOT NULL DEFAULT 0,
      announced boolean NOT NULL DEFAULT false,
      PRIMARY KEY (network_id, pool));
    CREATE TABLE ${t.tokens} (network_id int4 NOT NULL, token text NOT NULL, symbol text NOT NULL, PRIMARY KEY (network_id, token));
    CREATE TABLE ${t.campaigns} (
      network_id int4 NOT NULL, campaign text NOT NULL, payment_token text NOT NULL,
      price_per_share numeric NOT NULL, soft_cap_shares numeric NOT NULL, outcome text,
      PRIMARY KEY (network_id, campaign));
    CREATE TABLE ${t.contributors} (
      network_id int4 NOT NULL, campaign text NOT NULL, investor text NOT NULL, shares numeric NOT NULL,
      PRIMARY KEY (network_id, campaign, investor));
    CREATE TABLE ${t.listings} (
      network_id int4 NOT NULL, pool text NOT NULL, seller text NOT NULL, sale_address text NOT NULL,
      PRIMARY KEY (network_id, pool, seller));
  `);
}

/** A token the composition root knows (symbol, decimals): the very type the read models configure. */
export type KnownToken = TokenInfo;

export class FanoutLookups {
  constructor(
    private readonly tx: SqlExecutor,
    private readonly t: ProjectionTables,
    private readonly knownTokens: readonly KnownToken[] = [],
  ) {}

  async upsertPool(networkId: number, pool: string, fields: Record<string, string | null>): Promise<void> {
    const cols = Object.keys(fields);
    const values = cols.map((c) => fields[c]);
    const sets = cols.map((c, i) => `${c} = $${i + 3}`).join(', ');
    await this.tx.query(
      `INSERT INTO ${this.t.pools} (network_id, pool${cols.map((c) => `, ${c}`).join('')})
       VALUES ($1, $2${cols.map((_, i) => `, $${i + 3}`).join('')})
       ON CONFLICT (network_id, pool) DO ${cols.length ? `UPDATE SET ${sets}` : 'NOTHING'}`,
      [networkId, pool, ...values],
    );
  }

  /** Marks the pool announced; true only the first time (pool_created fires once per pool). */
  async announcePool(networkId: number, pool: string, version: string): Promise<boolean> {
    const { rows } = await this.tx.query<{ was: boolean | null }>(
      `WITH prev AS (SELECT announced FROM ${this.t.pools} WHERE network_id = $1 AND pool = $2)
       INSERT INTO ${this.t.pools} (network_id, pool, pool_version, announced) VALUES ($1, $2, $3, true)
       ON CONFLICT (network_id, pool) DO UPDATE SET announced = true, pool_version = EXCLUDED.pool_version
       RETURNING (SELECT announced FROM prev) AS was`,
      [networkId, pool, version],
    );
    return rows[0]?.was !== true;
  }

  async pool(networkId: number, pool: string): Promise<PoolLabel> {
    const { rows } = await this.tx.query<{ name: string | null; ticker: string | null; access_type: string | null; distribution_type: string | null }>(
      `SELECT name, ticker, access_type, distribution_type FROM ${this.t.pools} WHERE network_id = $1 AND pool = $2`,
      [networkId, pool],
    );
    const r = rows[0];
    return r ? { name: r.name, ticker: r.ticker, accessType: r.access_type, distributionType: r.distribution_type } : UNKNOWN_POOL;
  }

  /** V1 cap tables are basis points summing to 10 000 (docs/contracts.md §2.5: InvalidShareTotal); V2 shares are the PT supply. */
  async totalShares(networkId: number, pool: string): Promise<bigint> {
    const { rows } = await this.tx.query<{ pool_version: string | null; pt_supply: string }>(
      `SELECT pool_version, pt_supply::text AS pt_supply FROM ${this.t.pools} WHERE network_id = $1 AND pool = $2`,
      [networkId, pool],
    );
    if (!rows[0]) return 0n;
    return rows[0].pool_version === '1' ? 10_000n : BigInt(rows[0].pt_supply);
  }

  async addSupply(networkId: number, pool: string, delta: bigint): Promise<void> {
    await this.tx.query(
      `INSERT INTO ${this.t.pools} (network_id, pool, pt_supply) VALUES ($1, $2, $3::numeric)
       ON CONFLICT (network_id, pool) DO UPDATE SET pt_supply = ${this.t.pools}.pt_supply + EXCLUDED.pt_supply`,
      [networkId, pool, delta.toString()],
    );
  }

  async nextV1Round(networkId: number, pool: string): Promise<number> {
    const { rows } = await this.tx.query<{ n: number }>(
      `INSERT INTO ${this.t.pools} (network_id, pool, pool_version, v1_rounds) VALUES ($1, $2, '1', 1)
       ON CONFLICT (network_id, pool) DO UPDATE SET v1_rounds = ${this.t.pools}.v1_rounds + 1
       RETURNING v1_rounds AS n`,
      [networkId, pool],
    );
    return Number(rows[0].n);
  }

  async rememberToken(networkId: number, token: string, asset: string | null): Promise<void> {
    if (!asset) return;
    const symbol = asset === 'native' ? 'XLM' : asset.split(':')[0];
    await this.tx.query(`INSERT INTO ${this.t.tokens} (network_id, token, symbol) VALUES ($1, $2, $3) ON CONFLICT (network_id, token) DO NOTHING`, [
      networkId,
      token,
      symbol,
    ]);
  }

  /** Configured tokens first, then symbols learned from SAC transfers, else the contract id (as the read API does). */
  async token(networkId: number, token: string): Promise<TokenLabel> {
    const known = this.knownTokens.find((k) => k.networkId === networkId && k.address === token);
    if (known) return { symbol: known.symbol, decimals: known.decimals };
    const { rows } = await this.tx.query<{ symbol: string }>(`SELECT symbol FROM ${this.t.tokens} WHERE network_id = $1 AND token = $2`, [networkId, token]);
    return { symbol: rows[0]?.symbol ?? token, decimals: STELLAR_TOKEN_DECIMALS };
  }

  async createCampaign(networkId: number, campaign: string, paymentToken: string, price: string, softCap: string): Promise<void> {
    await this.tx.query(
      `INSERT INTO ${this.t.campaigns} (network_id, campaign, payment_token, price_per_share, soft_cap_shares)
       VALUES ($1, $2, $3, $4::numeric, $5::numeric) ON CONFLICT (network_id, campaign) DO NOTHING`,
      [networkId, campaign, paymentToken, price, softCap],
    );
  }

  async addContribution(networkId: number, campaign: string, investor: string, shares: bigint): Promise<void> {
    await this.tx.query(
      `INSERT INTO ${this.t.contributors} (network_id, campaign, investor, shares) VALUES ($1, $2, $3, $4::numeric)
       ON CONFLICT (network_id, campaign, investor) DO UPDATE SET shares = ${this.t.contributors}.shares + EXCLUDED.shares`,
      [networkId, campaign, investor, shares.toString()],
    );
  }

  /** Campaign figures, and whether this is the first outcome announced (each campaign announces one outcome). */
  async settleCampaign(
    networkId: number,
    campaign: string,
    outcome: 'finalized' | 'failed',
  ): Promise<{ first: boolean; paymentToken: string | null; target: bigint; contributors: number }> {
    const { rows } = await this.tx.query<{ payment_token: string; target: string; outcome: string | null }>(
      `SELECT payment_token, (price_per_share * soft_cap_shares)::text AS target, outcome FROM ${this.t.campaigns}
        WHERE network_id = $1 AND campaign = $2`,
      [networkId, campaign],
    );
    const count = await this.tx.query<{ n: string }>(
      `SELECT count(*) AS n FROM ${this.t.contributors} WHERE network_id = $1 AND campaign = $2 AND shares > 0`,
      [networkId, campaign],
    );
    const c = rows[0];
    if (c && c.outcome === null) {
      await this.tx.query(`UPDATE ${this.t.campaigns} SET outcome = $3 WHERE network_id = $1 AND campaign = $2`, [networkId, campaign, outcome]);
    }
    return {
      first: !c || c.outcome === null,
      paymentToken: c?.payment_token ?? null,
      target: c ? BigInt(c.target.split('.')[0]) : 0n,
      contributors: Number(count.rows[0].n),
    };
  }

  async setListing(networkId: number, pool: string, seller: string, sale: string): Promise<void> {
    await this.tx.query(
      `INSERT INTO ${this.t.listings} (network_id, pool, seller, sale_address) VALUES ($1, $2, $3, $4)
       ON CONFLICT (network_id, pool, seller) DO UPDATE SET sale_address = EXCLUDED.sale_address`,
      [networkId, pool, seller, sale],
    );
  }

  async listing(networkId: number, pool: string, seller: string): Promise<string | null> {
    const { rows } = await this.tx.query<{ sale_address: string }>(
      `SELECT sale_address FROM ${this.t.listings} WHERE network_id = $1 AND pool = $2 AND seller = $3`,
      [networkId, pool, seller],
    );
    return rows[0]?.sale_address ?? null;
  }
}
