import { isEventOf, saleAddress } from '@dob/domain';
import { FanoutSpec } from '../testing/fanout-specification';
import {
  sampleAccount,
  sampleContract,
  sampleListingCreated,
  sampleListingSold,
  samplePoolInitialized,
  samplePoolRegistered,
  sampleSharesTransferred,
} from '../testing/sample-events';

/** Given/when/then of the webhook fan-out: which notifications the `when` events cause, after the `given` ones. */
describe('webhook fan-out specification', () => {
  const POOL = sampleContract(1);

  it('given a registered pool, when its init is first seen, then pool_created with the registry metadata', async () => {
    await FanoutSpec.given(samplePoolRegistered(1))
      .when(samplePoolInitialized(1))
      .then([
        {
          event: 'pool_created',
          data: {
            pool_address: POOL,
            pool_name: 'Pool 1',
            pool_ticker: 'P1',
            network_id: 9,
            creator_address: sampleAccount(1),
            access_type: 'p',
            distribution_type: 'tr',
          },
        },
      ]);
  });

  it('given a pool, when shares move directly, then shares_transferred with integer shares', async () => {
    await FanoutSpec.given(samplePoolRegistered(1), samplePoolInitialized(1))
      .when(sampleSharesTransferred(1, 4))
      .then([
        {
          event: 'shares_transferred',
          data: expect.objectContaining({ pool_address: POOL, pool_name: 'Pool 1', from_address: sampleAccount(1), to_address: sampleAccount(2), shares: 5 }),
        },
      ]);
  });

  it('given a pool, when a listing is created and sold, then both notifications carry the same sale address', async () => {
    const listed = sampleListingCreated(1, 3, 50);
    if (!isEventOf(listed.event, ['ListingCreated'])) throw new Error('sampleListingCreated is a ListingCreated');
    const sale = saleAddress(9, POOL, sampleAccount(3), listed.event.data.chain.event_id);
    await FanoutSpec.given(samplePoolRegistered(1), samplePoolInitialized(1))
      .when(listed, sampleListingSold(1, 3, 4, 51))
      .then([
        {
          event: 'marketplace_listing_created',
          data: expect.objectContaining({
            sale_address: sale,
            pool_address: POOL,
            seller_address: sampleAccount(3),
            shares_amount: 40,
            price_per_share: '2.50',
          }),
        },
        {
          event: 'marketplace_sale_completed',
          data: expect.objectContaining({
            sale_address: sale,
            seller_address: sampleAccount(3),
            buyer_address: sampleAccount(4),
            shares: 10,
            total_price: '25.00',
          }),
        },
      ]);
  });

  it('given nothing, when shares move as a marketplace sale record, then no notification (the sale is the notification)', async () => {
    const sold = sampleSharesTransferred(1, 4);
    const asSale = { ...sold, event: { ...sold.event, data: { ...(sold.event.data as object), reason: 'marketplace_sale' } } };
    await FanoutSpec.given(samplePoolRegistered(1)).when(asSale).then([]);
  });
});
