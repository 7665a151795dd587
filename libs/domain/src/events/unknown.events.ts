import { z } from 'zod';
import { chainPayload } from './chain-ref';
import { defineEvent } from './define-event';

/**
 * A chain event from a watched contract that no decoder understood. Never dropped: the raw XDR is kept so a
 * later decoder version can replay it, and the indexer raises an alarm counter.
 */
export const ChainEventUndecoded = defineEvent(
  'ChainEventUndecoded',
  chainPayload({
    /** base64 ScVal XDR of each topic and of the data value. */
    topic_xdr: z.array(z.string()),
    value_xdr: z.string(),
    contract_kind: z.string().nullable(),
    contract_version: z.string().nullable(),
    reason: z.string(),
  }),
);

export const unknownEvents = [ChainEventUndecoded];
