import { ProjectionSpec } from '../../../projections/src/testing/projection-specification';
import { ALICE, BOB, CAMPAIGN, chainAt, onChain, POOL, TOKEN } from '../testing/spec-events';
import { walletHistoryProjection } from './wallet-history.projection';

const spec = ProjectionSpec.for(walletHistoryProjection);
const entry = (n: number, eventId: string, side: number, fields: object) => ({
  event_id: eventId,
  side,
  network_id: 9,
  counterparty: null,
  shares: null,
  amount: null,
  token: null,
  tx_hash: chainAt(n).tx_hash,
  occurred_at: chainAt(n).closed_at,
  chain_event_id: chainAt(n).event_id,
  ...fields,
});

describe('wallet history projection', () => {
  it('given nothing, when a sale completes, then seller and buyer each get their side', async () => {
    const sold = onChain(1, 'ListingSold', {
      pool: POOL,
      seller: ALICE,
      buyer: BOB,
      shares_sold: '5',
      total_price: '50',
      price_per_share: '10',
      payment_token: TOKEN,
      shares_remaining: null,
    });
    const id = 'event-ListingSold-1';
    const common = { pool: POOL, shares: '5', amount: '50', token: TOKEN };
    await spec
      .given()
      .when(sold)
      .then({
        entries: [
          entry(1, id, 0, { ...common, wallet: ALICE, type: 'shares_sold', counterparty: BOB }),
          entry(1, id, 1, { ...common, wallet: BOB, type: 'shares_bought', counterparty: ALICE }),
        ],
      });
  });

  it('given nothing, when shares move as a marketplace sale, then nothing is recorded twice (the sale is the record)', async () => {
    await spec
      .given()
      .when(onChain(1, 'SharesTransferred', { pool: POOL, from: ALICE, to: BOB, shares: '5', reason: 'marketplace_sale' }))
      .then({ entries: [] });
  });

  it('given nothing, when an investor contributes, then the contribution is in their history', async () => {
    await spec
      .given()
      .when(onChain(1, 'CampaignContributed', { investor: BOB, shares: '3', payment: '30', total_shares_sold: '3' }, CAMPAIGN))
      .then({ entries: [entry(1, 'event-CampaignContributed-1', 0, { wallet: BOB, type: 'contribution', pool: CAMPAIGN, shares: '3', amount: '30' })] });
  });
});
