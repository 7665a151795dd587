import { derivedEventId, poolStreamId } from '@dob/domain';
import type { NewEvent } from '@dob/event-store';
import { account, contract } from './sample-events';

/**
 * Synthetic trading activity for relay tests and the benchmark: valid domain events (the catalog accepts them) on
 * `pools` pool streams, cycling through a sale (dob.marketplace.v1), its share movement (dob.pools.v1) and a claim
 * (dob.distributions.v1), so every key spreads over three topics. Ids are deterministic per (run, n).
 */
export interface FlowAppend {
  readonly streamId: string;
  readonly event: NewEvent;
}

const USDC = contract(4);
const closedAt = () => new Date().toISOString();

export function flowEvent(run: string, n: number, pools: number): FlowAppend {
  const pool = contract(100 + (n % pools));
  const buyer = account(20 + (n % 7));
  const seller = account(30 + (n % 5));
  const chain = {
    network_id: 9,
    contract_id: pool,
    tx_hash: n.toString(16).padStart(64, '0'),
    ledger: 1000 + Math.floor(n / 10),
    event_id: `${String(n).padStart(19, '0')}-0000000001`,
    closed_at: closedAt(),
  };
  const kind = n % 3;
  const base = { id: derivedEventId('relay-flow', run, n), version: 1 };
  const event: NewEvent =
    kind === 0
      ? {
          ...base,
          type: 'ListingSold',
          data: {
            chain,
            pool,
            seller,
            buyer,
            shares_sold: String(1 + (n % 50)),
            total_price: String((1 + (n % 50)) * 500_000),
            price_per_share: '500000',
            payment_token: USDC,
            shares_remaining: null,
          },
        }
      : kind === 1
        ? { ...base, type: 'SharesTransferred', data: { chain, pool, from: seller, to: buyer, shares: String(1 + (n % 50)), reason: 'marketplace_sale' } }
        : { ...base, type: 'RoundClaimed', data: { chain, shareholder: buyer, round_id: String(1 + (n % 4)), token: USDC, amount: String(n * 10) } };
  return { streamId: poolStreamId(9, pool), event };
}

/** Events [from, to) grouped per stream for one appendMany (one transaction, one round trip). */
export function flowBatch(run: string, from: number, to: number, pools: number): { streamId: string; events: NewEvent[] }[] {
  const byStream = new Map<string, NewEvent[]>();
  for (let n = from; n < to; n++) {
    const a = flowEvent(run, n, pools);
    const events = byStream.get(a.streamId);
    if (events) events.push(a.event);
    else byStream.set(a.streamId, [a.event]);
  }
  return [...byStream].map(([streamId, events]) => ({ streamId, events }));
}
