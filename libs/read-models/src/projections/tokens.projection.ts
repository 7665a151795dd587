import type { ProjectionDefinition } from '@dob/projections';
import type { SqlExecutor } from '@dob/sql';
import { applyByType, type Chain } from './apply-by-type';

/**
 * Token symbols learned from the chain: a Stellar Asset Contract's CAP-67 `transfer` carries the asset topic
 * "CODE:ISSUER" (or "native" for XLM), which names the token. SAC amounts always have 7 decimals
 * (dob-contracts §1: SAC/classic = 7 decimals). Configured tokens override what is learned here.
 */
export const TOKENS = 'tokens';

export const tokensProjection: ProjectionDefinition<SqlExecutor> = {
  name: TOKENS,
  version: 1,
  eventTypes: ['PaymentTokenTransferred'],
  tables: ['tokens'],
  async setup(tx, t) {
    await tx.exec(`CREATE TABLE ${t.tokens} (
      network_id int  NOT NULL,
      address    text NOT NULL,
      symbol     text NOT NULL,
      asset      text NOT NULL,
      PRIMARY KEY (network_id, address)
    )`);
  },
  apply: applyByType({
    async PaymentTokenTransferred(tx, t, e) {
      const d = e.data;
      const c: Chain = d.chain;
      if (!d.asset) return;
      const symbol = d.asset === 'native' ? 'XLM' : String(d.asset).split(':')[0];
      await tx.query(
        `INSERT INTO ${t.tokens} (network_id, address, symbol, asset) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING`,
        [c.network_id, d.token, symbol, d.asset],
      );
    },
  }),
};
