import { saleAddress } from '@dob/domain';
import { ProjectionSpec } from '../../../projections/src/testing/projection-specification';
import { ALICE, BOB, chainAt, onChain, POOL, TOKEN } from '../testing/spec-events';
import { marketplaceProjection } from './marketplace.projection';

const spec = ProjectionSpec.for(marketplaceProjection);
const listed = onChain(1, 'ListingCreated', { pool: POOL, seller: ALICE, shares_amount: '100', price_per_share: '5000000', payment_token: TOKEN });
const sale = saleAddress(9, POOL, ALICE, chainAt(1).event_id);
const listing = {
  sale_address: sale,
  network_id: 9,
  pool: POOL,
  seller: ALICE,
  shares_listed: 100n,
  shares_amount: 100n,
  price_per_share: 5_000_000n,
  payment_token: TOKEN,
  status: 'active',
  created_at: chainAt(1).closed_at,
  chain_event_id: chainAt(1).event_id,
  tx_hash: chainAt(1).tx_hash,
  closed_at: null,
};
const sold = (n: number, shares: string) =>
  onChain(n, 'ListingSold', {
    pool: POOL,
    seller: ALICE,
    buyer: BOB,
    shares_sold: shares,
    total_price: String(BigInt(shares) * 5_000_000n),
    price_per_share: '5000000',
    payment_token: TOKEN,
    shares_remaining: null,
  });

describe('marketplace projection', () => {
  it('given nothing, when a seller lists, then one active listing whose id derives from the listed event', async () => {
    await spec
      .given()
      .when(listed)
      .then({ listings: [listing], sales: [] });
  });

  it('given a listing, when part of it sells, then it stays active with the rest and the sale is recorded', async () => {
    await spec
      .given(listed)
      .when(sold(2, '40'))
      .then({
        listings: [{ ...listing, shares_amount: 60n }],
        sales: [
          {
            event_id: 'event-ListingSold-2',
            sale_address: sale,
            network_id: 9,
            pool: POOL,
            seller: ALICE,
            buyer: BOB,
            shares: 40n,
            total_price: 200_000_000n,
            payment_token: TOKEN,
            sold_at: chainAt(2).closed_at,
            tx_hash: chainAt(2).tx_hash,
          },
        ],
      });
  });

  it('given a listing, when the rest sells, then it is sold and closed at that ledger', async () => {
    await spec
      .given(listed, sold(2, '40'))
      .when(sold(3, '60'))
      .then({ listings: [{ ...listing, shares_amount: 0n, status: 'sold', closed_at: chainAt(3).closed_at }] });
  });

  it('given a listing, when the seller re-lists, then the old one is cancelled (one listing per seller)', async () => {
    const relisted = onChain(2, 'ListingCreated', { pool: POOL, seller: ALICE, shares_amount: '10', price_per_share: '7000000', payment_token: TOKEN });
    const second = saleAddress(9, POOL, ALICE, chainAt(2).event_id);
    const docs = await spec.given(listed).when(relisted).documents();
    expect(docs.listings.find((l) => l.sale_address === sale)).toMatchObject({ status: 'cancelled', closed_at: chainAt(2).closed_at });
    expect(docs.listings.find((l) => l.sale_address === second)).toMatchObject({ status: 'active', shares_amount: 10n, price_per_share: 7_000_000n });
  });

  it('given a listing, when it is cancelled, then it is cancelled', async () => {
    await spec
      .given(listed)
      .when(onChain(2, 'ListingCancelled', { pool: POOL, seller: ALICE }))
      .then({ listings: [{ ...listing, status: 'cancelled', closed_at: chainAt(2).closed_at }] });
  });
});
