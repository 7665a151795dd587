import { z } from 'zod';
import { contractAddress, isoTime, networkId } from './chain-ref';
import { defineEvent } from './define-event';
import { POOL_TYPES } from './pool.events';

/** What a watched contract is, and the hash of its code: the same fields in discoveries and snapshots. */
const contractKind = z.enum(['splitter', 'participation_token', 'crowdfunding', 'sac', 'exit_liquidity']);
const wasmHash = z
  .string()
  .regex(/^[0-9a-f]{64}$/)
  .nullable();

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
      kind: contractKind,
      version: z.string(),
      wasm_hash: wasmHash,
      /** The pool a participation token belongs to. */
      pool: contractAddress.nullable(),
      /** `registry`: a pool an operator registered (PoolRegistered), confirmed by its wasm hash. */
      source: z.enum(['init', 'cf_init', 'configured', 'participation_token', 'registry']),
      first_seen_ledger: z.number().int().nonnegative(),
    })
    .strict(),
);

/**
 * The indexer's state as of one committed window, on stream `indexer-<networkId>-snapshot`, appended in the same
 * append as that window's cursor (so it commits with it) every so many windows: a restart reads the last snapshot
 * and the few indexer events after `indexer_revision` instead of the whole indexer stream (docs/indexer.md).
 */
export const IngestionSnapshotTaken = defineEvent(
  'IngestionSnapshotTaken',
  z
    .object({
      network_id: networkId,
      /** Revision of the IngestionCursorAdvanced on `indexer-<networkId>` this snapshot was taken with. */
      indexer_revision: z.number().int().nonnegative(),
      next_ledger: z.number().int().nonnegative(),
      /** Last ledger a cursor was written for (empty windows write one only every so often). */
      checkpoint_ledger: z.number().int().nonnegative(),
      watched: z.array(
        z
          .object({
            contract_id: contractAddress,
            kind: contractKind,
            version: z.string(),
            wasm_hash: wasmHash,
            pool: contractAddress.nullable(),
            pool_type: z.enum(POOL_TYPES).nullable(),
          })
          .strict(),
      ),
      /** Shares still listed per (pool, seller): the listing book ListingSold's shares_remaining comes from. */
      open_listings: z.array(z.object({ pool: contractAddress, seller: z.string(), shares: z.string().regex(/^\d+$/) }).strict()),
      /** Registered pools not watched (unknown wasm hash): asked again after a restart, as before snapshots. */
      registered_unwatched: z.array(contractAddress),
      /** `$all` position ("commit:prepare") up to which PoolRegistered events were read. */
      registrations_read_to: z.string(),
    })
    .strict(),
);

export const indexerEvents = [IngestionCursorAdvanced, ContractDiscovered, IngestionSnapshotTaken];
