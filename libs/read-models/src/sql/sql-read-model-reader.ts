import type { SqlExecutor } from '@dob/sql';
import type { LearnedToken, ReadModelReader } from '../queries/read-model-reader.port';
import { LEARNED_TOKEN_FIELDS } from '../projections/tokens.projection';
import { documentColumns } from './document-columns';
import { sqlMarketReads } from './sql-market-reads';
import { sqlPoolReads } from './sql-pool-reads';
import { sqlPortfolioReads } from './sql-portfolio-reads';
import { V } from './views';

/**
 * The read models in SQL (PGlite or PostgreSQL): each read is one or a few statements over the stable views, joins
 * and aggregates done by the database. Give it a read-result cache's executor to keep results between changes.
 */
export function createSqlReadModelReader(db: SqlExecutor): ReadModelReader {
  return {
    ...sqlPoolReads(db),
    ...sqlMarketReads(db),
    ...sqlPortfolioReads(db),
    async learnedTokens() {
      return (await db.query<LearnedToken>(`SELECT ${documentColumns('t', LEARNED_TOKEN_FIELDS)} FROM ${V.tokens} t`)).rows;
    },
  };
}
