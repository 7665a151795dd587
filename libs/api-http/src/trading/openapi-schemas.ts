import type { SchemaObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';
import { int, money, nstr, num, obj, str } from '../openapi/schema-parts';

/** Response shapes of the marketplace trade and crowdfunding endpoints, reclaim included (docs/decisions.md#d10). */
const prepared = (details: SchemaObject): SchemaObject =>
  obj({
    xdr: { type: 'string', description: 'Unsigned transaction envelope (base64 XDR): sign it locally' },
    transaction_details: details,
    expires_at: { type: 'string', format: 'date-time', description: 'maxTime of the envelope, 10 minutes ahead' },
    network_passphrase: str,
  });
const submitted = (fields: Record<string, SchemaObject>): SchemaObject => obj({ transaction_hash: str, ...fields, stellar_explorer_url: str });

export const preparedBuySchema = prepared(
  obj({ listing_id: str, shares: int, price_per_share: money, total_cost: money, payment_token: nstr, seller_address: str }),
);
export const preparedListSchema = prepared(
  obj({ pool_address: str, shares_amount: int, price_per_share: money, total_listing_value: money, payment_token: nstr }),
);
export const preparedCancelSchema = prepared(obj({ listing_id: str, shares_returned: int }));
export const preparedContributeSchema = prepared(
  obj({
    pool_address: str,
    pool_name: nstr,
    amount: money,
    payment_token: nstr,
    estimated_shares: int,
    current_raised: money,
    target_amount: money,
    progress_after_contribution: { type: 'string', example: '42.17' },
    deadline: { type: 'string', format: 'date-time' },
  }),
);
export const preparedReclaimSchema = prepared(obj({ pool_address: str, pool_name: nstr, amount: money, payment_token: nstr, shares: int }));

export const boughtSchema = submitted({ listing_id: str, shares_bought: int, total_cost: money, payment_token: nstr });
export const listedSchema = submitted({ sale_address: nstr, pool_address: str, shares_listed: int, price_per_share: money, payment_token: nstr });
export const cancelledSchema = submitted({ listing_id: str, shares_returned: int });
export const contributedSchema = submitted({
  pool_address: str,
  amount_contributed: money,
  payment_token: nstr,
  shares_allocated: int,
  new_total_raised: money,
  progress_percent: num,
});
export const reclaimedSchema = submitted({ pool_address: str, amount_reclaimed: money, payment_token: nstr, shares_refunded: int });
