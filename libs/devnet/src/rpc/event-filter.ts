import { StrKey, xdr } from '@stellar/stellar-sdk';
import type { ContractEventRecord } from '../chain/chain-records';

/**
 * getEvents filters, validated and matched with stellar-rpc's rules and messages
 * (go-stellar-sdk protocols/rpc/get_events.go): ≤5 filters, ≤5 contract ids and ≤5 topic filters per filter,
 * 1–4 segments per topic filter, `*` matches exactly one segment, a trailing `**` matches zero or more.
 */
export const MAX_FILTERS = 5;
export const MAX_CONTRACT_IDS = 5;
export const MAX_TOPIC_FILTERS = 5;
export const MAX_TOPIC_SEGMENTS = 4;

type Segment = { readonly wildcard: '*' | '**' } | { readonly scVal: string };

export interface EventFilter {
  readonly types: ReadonlySet<string>;
  readonly contractIds: readonly string[];
  readonly topics: readonly (readonly Segment[])[];
}

export class InvalidFilterError extends Error {}

export function parseEventFilters(raw: unknown): EventFilter[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) throw new InvalidFilterError('filters must be an array');
  if (raw.length > MAX_FILTERS) throw new InvalidFilterError('maximum 5 filters per request');
  return raw.map((filter, i) => {
    try {
      return parseFilter(filter);
    } catch (err) {
      throw new InvalidFilterError(`filter ${i + 1} invalid: ${(err as Error).message}`);
    }
  });
}

function parseFilter(raw: unknown): EventFilter {
  if (typeof raw !== 'object' || raw === null) throw new Error('filter must be an object');
  const { type, contractIds, topics } = raw as { type?: unknown; contractIds?: unknown; topics?: unknown };
  const types = new Set<string>();
  if (type !== undefined && type !== '') {
    if (typeof type !== 'string') throw new Error('filter type invalid: type must be a string');
    for (const t of type.split(',')) {
      if (t !== 'system' && t !== 'contract') {
        throw new Error("filter type invalid: if set, type must be either 'system' or 'contract'");
      }
      types.add(t);
    }
  }
  const ids = contractIds ?? [];
  if (!Array.isArray(ids)) throw new Error('contractIds must be an array');
  if (ids.length > MAX_CONTRACT_IDS) throw new Error('maximum 5 contract IDs per filter');
  ids.forEach((id, i) => {
    if (typeof id !== 'string' || !StrKey.isValidContract(id)) throw new Error(`contract ID ${i + 1} invalid`);
  });
  const topicList = topics ?? [];
  if (!Array.isArray(topicList)) throw new Error('topics must be an array');
  if (topicList.length > MAX_TOPIC_FILTERS) throw new Error('maximum 5 topics per filter');
  const parsedTopics = topicList.map((topic, i) => {
    try {
      return parseTopicFilter(topic);
    } catch (err) {
      throw new Error(`topic ${i + 1} invalid: ${(err as Error).message}`);
    }
  });
  return { types, contractIds: ids as string[], topics: parsedTopics };
}

function parseTopicFilter(raw: unknown): Segment[] {
  if (!Array.isArray(raw)) throw new Error('topic must be an array');
  if (raw.length < 1) throw new Error('topic must have at least 1 segment');
  const segments = raw.map((segment): Segment => {
    if (typeof segment !== 'string') throw new Error('segment must be a string');
    if (segment === '*' || segment === '**') return { wildcard: segment };
    try {
      // Re-encode so that the comparison below is on canonical XDR bytes.
      return { scVal: xdr.ScVal.fromXdr(segment, 'base64').toXdr('base64') };
    } catch {
      throw new Error('segment is not a base64 ScVal');
    }
  });
  const fixed = hasTrailingZeroOrMore(segments) ? segments.slice(0, -1) : segments;
  fixed.forEach((segment, i) => {
    if ('wildcard' in segment && segment.wildcard === '**') {
      throw new Error(`segment ${i + 1} invalid: wildcard '**' is only allowed as the last segment`);
    }
  });
  if (fixed.length > MAX_TOPIC_SEGMENTS) throw new Error('topic cannot have more than 4 segments');
  return segments;
}

function hasTrailingZeroOrMore(segments: readonly Segment[]): boolean {
  const last = segments[segments.length - 1];
  return last !== undefined && 'wildcard' in last && last.wildcard === '**';
}

export function topicMatches(filter: readonly Segment[], topics: readonly string[]): boolean {
  let fixed = filter;
  if (hasTrailingZeroOrMore(filter)) {
    if (topics.length < filter.length - 1) return false;
    fixed = filter.slice(0, -1);
  } else if (topics.length !== filter.length) {
    return false;
  }
  return fixed.every((segment, i) => 'wildcard' in segment || segment.scVal === topics[i]);
}

export function filterMatches(filter: EventFilter, event: Pick<ContractEventRecord, 'type' | 'contractId' | 'topics'>): boolean {
  if (filter.types.size > 0 && !filter.types.has(event.type)) return false;
  if (filter.contractIds.length > 0 && !filter.contractIds.includes(event.contractId)) return false;
  if (filter.topics.length > 0 && !filter.topics.some((t) => topicMatches(t, event.topics))) return false;
  return true;
}

/** No filters match everything; otherwise the filters are OR-ed. */
export function eventMatches(filters: readonly EventFilter[], event: Pick<ContractEventRecord, 'type' | 'contractId' | 'topics'>): boolean {
  return filters.length === 0 || filters.some((f) => filterMatches(f, event));
}
