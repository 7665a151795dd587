import { z } from 'zod';
import { chainPayload, contractAddress, i128String, isoTime, networkId, stellarAddress, u64String } from './chain-ref';
import { defineEvent } from './define-event';

/** PayoutMode u32 (docs/contracts.md §4.5): 0 Escrow, 1 DirectToOwner. Absent in CF-a/b/d/e builds. */
export const PAYOUT_MODES = ['escrow', 'direct_to_owner'] as const;
const payoutMode = z.enum(PAYOUT_MODES).nullable();

/** `cf_init(admin)` → (payment_token, price_per_share, soft_cap_shares, hard_cap_shares, deadline[, payout_mode]). */
export const CampaignCreated = defineEvent(
  'CampaignCreated',
  chainPayload({
    /** Crowdfunding build letter (a…g, docs/contracts.md §4.1) or "unknown". */
    contract_version: z.string(),
    admin: stellarAddress,
    payment_token: contractAddress,
    price_per_share: i128String,
    soft_cap_shares: i128String,
    hard_cap_shares: i128String,
    deadline: isoTime,
    deadline_unix: u64String,
    payout_mode: payoutMode,
  }),
);

/** `cf_ctrb(investor)` → (shares_amount, payment, total_shares_sold_after). */
export const CampaignContributed = defineEvent(
  'CampaignContributed',
  chainPayload({ investor: stellarAddress, shares: i128String, payment: i128String, total_shares_sold: i128String }),
);

/** `cf_optout(investor)` → (shares, refund_amount) (CF-d+; decrements sold and raised). */
export const CampaignOptedOut = defineEvent('CampaignOptedOut', chainPayload({ investor: stellarAddress, shares: i128String, refund_amount: i128String }));

/** `cf_done(campaign)` → (status, total_shares_sold, total_raised); status 1 Succeeded, 2 Failed (CF-g also from opt_out). */
export const CampaignFinalized = defineEvent(
  'CampaignFinalized',
  chainPayload({
    outcome: z.enum(['succeeded', 'failed']),
    status_code: z.number().int(),
    total_shares_sold: i128String,
    total_raised: i128String,
  }),
);

/** `cf_prop(campaign)` → (splitter, eta). */
export const CampaignActivationProposed = defineEvent(
  'CampaignActivationProposed',
  chainPayload({ splitter: contractAddress, eta: isoTime, eta_unix: u64String }),
);

/** `cf_actv(campaign)` → (splitter, total_raised[, payout_mode]). The pool address is `splitter`. */
export const CampaignActivated = defineEvent(
  'CampaignActivated',
  chainPayload({ splitter: contractAddress, total_raised: i128String, payout_mode: payoutMode }),
);

/** `cf_cncl(campaign)` → splitter (CF-e+). */
export const CampaignActivationCancelled = defineEvent('CampaignActivationCancelled', chainPayload({ splitter: contractAddress }));

/** `cf_rfnd(investor)` → (shares, refund_amount). Does not decrement the on-chain totals (docs/contracts.md §4.6). */
export const CampaignRefunded = defineEvent('CampaignRefunded', chainPayload({ investor: stellarAddress, shares: i128String, refund_amount: i128String }));

/** `cf_expr(campaign)` → (total_shares_sold, total_raised): activation window lapsed, campaign Failed. */
export const CampaignActivationExpired = defineEvent('CampaignActivationExpired', chainPayload({ total_shares_sold: i128String, total_raised: i128String }));

/**
 * Time-driven (scheduler): the deadline passed with sold < soft cap while the chain still says Fundraising
 * (nobody called finalize). The effective failure the webhook `crowdfunding_failed` reports. Exactly once.
 */
export const CampaignEffectivelyFailed = defineEvent(
  'CampaignEffectivelyFailed',
  z
    .object({
      network_id: networkId,
      campaign: contractAddress,
      deadline: isoTime,
      total_shares_sold: i128String,
      soft_cap_shares: i128String,
      total_raised: i128String,
      observed_at: isoTime,
    })
    .strict(),
);

export const crowdfundingEvents = [
  CampaignCreated,
  CampaignContributed,
  CampaignOptedOut,
  CampaignFinalized,
  CampaignActivationProposed,
  CampaignActivated,
  CampaignActivationCancelled,
  CampaignRefunded,
  CampaignActivationExpired,
  CampaignEffectivelyFailed,
];
