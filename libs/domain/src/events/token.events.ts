import { z } from 'zod';
import { chainPayload, contractAddress, i128String, stellarAddress } from './chain-ref';
import { defineEvent } from './define-event';

/**
 * A SAC / SEP-41 `transfer` (CAP-67: [transfer, from, to, "CODE:ISSUER"] → i128) of a payment or reward token,
 * recorded only when a watched pool or campaign is a party (e.g. contributions, refunds, commission, deposits).
 * Appended to the party's stream; `party` says which one.
 */
export const PaymentTokenTransferred = defineEvent(
  'PaymentTokenTransferred',
  chainPayload({
    token: contractAddress,
    party: contractAddress,
    from: stellarAddress,
    to: stellarAddress,
    amount: i128String,
    /** The SAC's asset topic ("CODE:ISSUER" or "native"), null for plain SEP-41 tokens. */
    asset: z.string().nullable(),
  }),
);

export const tokenEvents = [PaymentTokenTransferred];
