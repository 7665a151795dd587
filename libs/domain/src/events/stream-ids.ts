import { parse as parseUuid, v5 as uuidv5 } from 'uuid';

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
 * The namespace as bytes, and names as UTF-8 bytes: uuid's v5 parses a string namespace twice per call and encodes a
 * string name through `unescape(encodeURIComponent())` — together about a third of an id's cost, paid for every
 * event of a backfill (the indexer bench's profile). Same ids (uuid.spec: RFC 9562 vectors and this namespace).
 */
const NAMESPACE_BYTES = parseUuid(CHAIN_EVENT_ID_NAMESPACE);
const chainId = (name: string): string => uuidv5(Buffer.from(name, 'utf8'), NAMESPACE_BYTES);

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
