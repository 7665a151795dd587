import { pickFields, type DocOf, type Fields, type ProjectionDefinition } from '@dob/projections';
import { byEventType, type Chain } from './event-handlers';

/**
 * Token symbols learned from the chain: a Stellar Asset Contract's CAP-67 `transfer` carries the asset topic
 * "CODE:ISSUER" (or "native" for XLM), which names the token. SAC amounts always have 7 decimals
 * (docs/contracts.md §1: SAC/classic = 7 decimals). Configured tokens override what is learned here.
 */
export const TOKENS = 'tokens';

/** A learned token, declared once: TokenDoc, the store's columns and the readers' LearnedToken follow. */
export const TOKEN_FIELDS = { network_id: 'int', address: 'text', symbol: 'text', asset: 'text' } as const satisfies Fields;
export type TokenDoc = DocOf<typeof TOKEN_FIELDS>;
/** What the readers hand to the token directory (queries/token-directory.ts): the symbol, not the asset it came from. */
export const LEARNED_TOKEN_FIELDS = pickFields(TOKEN_FIELDS, ['network_id', 'address', 'symbol']);

export const tokensProjection: ProjectionDefinition = {
  name: TOKENS,
  // v2: a document reducer for both stores.
  version: 2,
  collections: {
    tokens: { fields: TOKEN_FIELDS, key: ['network_id', 'address'] },
  },
  ...byEventType({
    async PaymentTokenTransferred(s, e) {
      const d = e.data;
      const c: Chain = d.chain;
      if (!d.asset) return;
      const key = { network_id: c.network_id, address: d.token };
      if (await s.get('tokens', key)) return; // the first sighting names it
      const token: TokenDoc = { ...key, symbol: d.asset === 'native' ? 'XLM' : String(d.asset).split(':')[0]!, asset: d.asset };
      s.put('tokens', token);
    },
  }),
};
