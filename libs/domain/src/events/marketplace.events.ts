import { chainPayload, contractAddress, i128String, stellarAddress } from './chain-ref';
import { defineEvent } from './define-event';

/** `listed(seller)` → (shares_amount, price_per_share, payment_token). V1 re-listing overwrites the seller's listing. */
export const ListingCreated = defineEvent(
  'ListingCreated',
  chainPayload({
    pool: contractAddress,
    seller: stellarAddress,
    shares_amount: i128String,
    price_per_share: i128String,
    payment_token: contractAddress,
  }),
);

/**
 * `sold(seller, buyer)` → (shares_amount, total_price, payment_token). A buy may be partial.
 * price_per_share = total_price / shares_sold (exact on chain: total = shares × price).
 * shares_remaining is not on the event: projections derive it from the listing (null here).
 */
export const ListingSold = defineEvent(
  'ListingSold',
  chainPayload({
    pool: contractAddress,
    seller: stellarAddress,
    buyer: stellarAddress,
    shares_sold: i128String,
    total_price: i128String,
    price_per_share: i128String.nullable(),
    payment_token: contractAddress,
    shares_remaining: i128String.nullable(),
  }),
);

/** `canceled(seller)` → true. */
export const ListingCancelled = defineEvent('ListingCancelled', chainPayload({ pool: contractAddress, seller: stellarAddress }));

export const marketplaceEvents = [ListingCreated, ListingSold, ListingCancelled];
