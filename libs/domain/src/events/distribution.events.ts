import { z } from 'zod';
import { chainPayload, contractAddress, i128String, isoTime, networkId, stellarAddress, u64String } from './chain-ref';
import { defineEvent } from './define-event';

/** `dist_com(token)` → (recipient, commission): V1 and V2, when the commission is > 0. */
export const DistributionCommissionPaid = defineEvent(
  'DistributionCommissionPaid',
  chainPayload({ token: contractAddress, recipient: stellarAddress, commission: i128String }),
);

/** V1 `distrib(shareholder)` → (token, amount): allocation credited (push model). */
export const DistributionAllocated = defineEvent(
  'DistributionAllocated',
  chainPayload({ shareholder: stellarAddress, token: contractAddress, amount: i128String }),
);

/** V1 `dust(shareholder)` → (token, dust): rounding remainder to the largest holder. */
export const DistributionDustAllocated = defineEvent(
  'DistributionDustAllocated',
  chainPayload({ shareholder: stellarAddress, token: contractAddress, amount: i128String }),
);

/** V1.3 `dist_str` → (shareholder_count, amount_for_shareholders): a batched distribution began. */
export const DistributionBatchStarted = defineEvent(
  'DistributionBatchStarted',
  chainPayload({ shareholder_count: z.number().int().nonnegative(), amount_for_shareholders: i128String }),
);

/** V1 `dist_all(token)` → total_distributed: a V1 round (claimable at once, no expiry). */
export const DistributionCompleted = defineEvent('DistributionCompleted', chainPayload({ token: contractAddress, total_distributed: i128String }));

/** `withdraw(shareholder)` → (token, amount): V1 allocation withdrawn (V2 keeps it for compatibility). */
export const AllocationWithdrawn = defineEvent(
  'AllocationWithdrawn',
  chainPayload({ shareholder: stellarAddress, token: contractAddress, amount: i128String }),
);

/** V2 `dist_new(token)` → (round_id, amount_after_commission, claimable_from, expires_at). */
export const RoundCreated = defineEvent(
  'RoundCreated',
  chainPayload({
    round_id: u64String,
    token: contractAddress,
    total_amount: i128String,
    claimable_from: isoTime,
    expires_at: isoTime,
    claimable_from_unix: u64String,
    expires_at_unix: u64String,
  }),
);

/** V2 `sched_tr(token)` → (round_id,): the round was created by the permissionless schedule trigger. */
export const ScheduledRoundTriggered = defineEvent('ScheduledRoundTriggered', chainPayload({ round_id: u64String, token: contractAddress }));

/** V2 `claimed(shareholder)` → (round_id, token, amount). */
export const RoundClaimed = defineEvent(
  'RoundClaimed',
  chainPayload({ shareholder: stellarAddress, round_id: u64String, token: contractAddress, amount: i128String }),
);

/** V2 `reclaim(token)` → (round_id, unclaimed): the admin took back an expired round's remainder. */
export const RoundReclaimed = defineEvent('RoundReclaimed', chainPayload({ round_id: u64String, token: contractAddress, unclaimed: i128String }));

/**
 * Time-driven (scheduler, not chain): the round's claimable_from has passed (webhook `claim_available`).
 * Appended exactly once per round (deterministic id).
 */
export const RoundClaimAvailable = defineEvent(
  'RoundClaimAvailable',
  z
    .object({
      network_id: networkId,
      pool: contractAddress,
      round_id: u64String,
      token: contractAddress,
      total_amount: i128String,
      claimable_from: isoTime,
      expires_at: isoTime,
      /** The RoundCreated chain event this follows from. */
      source_event_id: z.string().min(1),
      observed_at: isoTime,
    })
    .strict(),
);

export const distributionEvents = [
  DistributionCommissionPaid,
  DistributionAllocated,
  DistributionDustAllocated,
  DistributionBatchStarted,
  DistributionCompleted,
  AllocationWithdrawn,
  RoundCreated,
  ScheduledRoundTriggered,
  RoundClaimed,
  RoundReclaimed,
  RoundClaimAvailable,
];
