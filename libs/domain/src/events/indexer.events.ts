import { z } from 'zod';
import { contractAddress, isoTime, networkId } from './chain-ref';
import { defineEvent } from './define-event';

/**
 * The ingestion cursor, stored on stream `indexer-<networkId>` in the same append as the domain events of the
 * ledger range it covers, so cursor and events commit together.
 */
export const IngestionCursorAdvanced = defineEvent(
  'IngestionCursorAdvanced',
  z
    .object({
      network_id: networkId,
      from_ledger: z.number().int().nonnegative(),
      /** Last ledger covered (inclusive). */
      to_ledger: z.number().int().nonnegative(),
      /** Where the next scan starts (to_ledger + 1). */
      next_ledger: z.number().int().nonnegative(),
      latest_ledger: z.number().int().nonnegative(),
      /** Close time of the latest ledger as reported by the RPC, when it reports one. */
      latest_ledger_closed_at: isoTime.nullable(),
      chain_events: z.number().int().nonnegative(),
      domain_events: z.number().int().nonnegative(),
      undecoded: z.number().int().nonnegative(),
    })
    .strict(),
);

/** A contract confirmed as Dob (wasm hash in the known list, or configured); rebuilt on restart. */
export const ContractDiscovered = defineEvent(
  'ContractDiscovered',
  z
    .object({
      network_id: networkId,
      contract_id: contractAddress,
      kind: z.enum(['splitter', 'participation_token', 'crowdfunding', 'sac', 'exit_liquidity']),
      version: z.string(),
      wasm_hash: z.string().regex(/^[0-9a-f]{64}$/).nullable(),
      /** The pool a participation token belongs to. */
      pool: contractAddress.nullable(),
      /** `registry`: a pool an operator registered (PoolRegistered), confirmed by its wasm hash. */
      source: z.enum(['init', 'cf_init', 'configured', 'participation_token', 'registry']),
      first_seen_ledger: z.number().int().nonnegative(),
    })
    .strict(),
);

export const indexerEvents = [IngestionCursorAdvanced, ContractDiscovered];
