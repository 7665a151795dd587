import { hash } from 'node:crypto';
import { parse as parseUuid } from 'uuid';

/** Stream naming for chain-derived aggregates; one stream per contract per network. */
export const poolStreamId = (networkId: number, contractId: string): string => `pool-${networkId}-${contractId}`;
export const campaignStreamId = (networkId: number, contractId: string): string => `campaign-${networkId}-${contractId}`;
/** Events of tokens that are not tied to a known pool (e.g. an orphan participation token). */
export const tokenStreamId = (networkId: number, contractId: string): string => `token-${networkId}-${contractId}`;
/** Contracts that were watched but could not be placed (kind unknown): undecoded events land here. */
export const contractStreamId = (networkId: number, contractId: string): string => `contract-${networkId}-${contractId}`;
/** The indexer's own stream: cursor and discoveries of one network. */
export const indexerStreamId = (networkId: number): string => `indexer-${networkId}`;

/** Fixed namespace for all chain-derived ids (a random v4 generated once for this project). */
export const CHAIN_EVENT_ID_NAMESPACE = '6f1c2a9e-3f5b-4c1d-9a7e-2b8d4e6f0a13';
/**
 * UUID v5 (RFC 9562 §5.5): the first 16 bytes of SHA-1(namespace ‖ name), version 5 and the RFC variant set. Computed
 * here rather than with uuid's v5, which hashes through a Hash object, copies the digest into a new array and formats
 * it byte by byte: 3.5 µs an id against 1.5 µs with node:crypto's one-shot `hash` and the hex digest sliced (one id per
 * domain event of a backfill; bench/indexer.bench.ts). Same ids: stream-ids.spec checks them against uuid's v5.
 */
const NAMESPACE_BYTES = Buffer.from(parseUuid(CHAIN_EVENT_ID_NAMESPACE));
const VARIANT_NIBBLE = ['8', '9', 'a', 'b'] as const;
function chainId(name: string): string {
  const h = hash('sha1', Buffer.concat([NAMESPACE_BYTES, Buffer.from(name, 'utf8')]), 'hex');
  // Byte 6's high nibble is the version (5); byte 8's two high bits are the variant (10).
  const variant = VARIANT_NIBBLE[parseInt(h[16]!, 16) & 0x3]!;
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/**
 * Deterministic UUID v5 of (network, RPC event id, index of the domain event produced from it): replays and
 * retries produce the same ids, which the event store skips (idempotent append).
 */
export function chainDomainEventId(networkId: number, chainEventId: string, index: number): string {
  return chainId(`${networkId}/${chainEventId}/${index}`);
}

/** Deterministic id for events derived from something other than one chain event (time-driven, registry). */
export function derivedEventId(...parts: readonly (string | number)[]): string {
  return chainId(parts.join('/'));
}
