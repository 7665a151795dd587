import { Address, xdr } from '@stellar/stellar-sdk';
import type { RpcEventFilter } from '../rpc/chain-rpc.port';

/** stellar-rpc getEvents limits: at most 5 filters per request, 5 contract ids and 5 topic lists per filter. */
export const MAX_FILTERS_PER_REQUEST = 5;
export const MAX_CONTRACTS_PER_FILTER = 5;
export const MAX_TOPICS_PER_FILTER = 5;

const symbolXdr = (s: string) => xdr.ScVal.scvSymbol(s).toXdr('base64');
const addressXdr = (a: string) => Address.fromString(a).toScVal().toXdr('base64');

/** Discovery: any contract's `init` / `cf_init` (symbol-only topic filters; the second topic is the admin). */
export function discoveryFilters(): RpcEventFilter[] {
  return [
    {
      type: 'contract',
      topics: [
        [symbolXdr('init'), '*'],
        [symbolXdr('cf_init'), '*'],
      ],
    },
  ];
}

/** All events of the watched contracts, 5 contract ids per filter. */
export function contractFilters(contractIds: readonly string[]): RpcEventFilter[] {
  const out: RpcEventFilter[] = [];
  for (let i = 0; i < contractIds.length; i += MAX_CONTRACTS_PER_FILTER) {
    out.push({ type: 'contract', contractIds: contractIds.slice(i, i + MAX_CONTRACTS_PER_FILTER) });
  }
  return out;
}

/**
 * Token transfers (CAP-67 4-topic `transfer`) of ANY token where a pool/campaign is sender or receiver:
 * [transfer, party, *, *] and [transfer, *, party, *]; two parties per filter (4 of the 5 topic lists).
 */
export function partyTransferFilters(parties: readonly string[]): RpcEventFilter[] {
  const transfer = symbolXdr('transfer');
  const out: RpcEventFilter[] = [];
  for (let i = 0; i < parties.length; i += 2) {
    const topics = parties.slice(i, i + 2).flatMap((p) => {
      const a = addressXdr(p);
      return [
        [transfer, a, '*', '*'],
        [transfer, '*', a, '*'],
      ];
    });
    out.push({ type: 'contract', topics });
  }
  return out;
}

/** Groups filters into requests of at most 5 filters each. */
export function toRequests(filters: readonly RpcEventFilter[]): RpcEventFilter[][] {
  const out: RpcEventFilter[][] = [];
  for (let i = 0; i < filters.length; i += MAX_FILTERS_PER_REQUEST) out.push(filters.slice(i, i + MAX_FILTERS_PER_REQUEST));
  return out;
}
