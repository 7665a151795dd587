import { scValToNative, StrKey, type xdr } from '@stellar/stellar-sdk';
import { formatAmount, saleAddress } from '@dob/domain';
import { progressPercent } from '../prepare/prepare-service';
import type { PreparedTransaction } from '../ports/prepared-transactions.port';

export interface DecodedEvent {
  readonly contractId: string | null;
  readonly name: string;
  readonly topics: readonly unknown[];
  readonly data: unknown;
}

/** Contract events of a successful transaction, decoded to native values (topic[0] is the event symbol). */
export function decodeEvents(events: readonly xdr.ContractEvent[]): DecodedEvent[] {
  return events.map((e) => {
    const body = e.body.v0;
    const topics = body.topics.map((t) => scValToNative(t) as unknown);
    return {
      contractId: e.contractId ? StrKey.encodeContract(Buffer.from(e.contractId.value)) : null,
      name: String(topics[0] ?? ''),
      topics: topics.slice(1),
      data: scValToNative(body.data) as unknown,
    };
  });
}

export class MissingEffect extends Error {}

const find = (events: readonly DecodedEvent[], name: string, contract: string): DecodedEvent => {
  const e = events.find((x) => x.name === name && x.contractId === contract);
  if (!e) throw new MissingEffect(`expected a ${name} event from ${contract}`);
  return e;
};
/** The data tuple of the `name` event `contract` emitted (a Soroban event's data is a vec for these events). */
const tupleOf = (events: readonly DecodedEvent[], name: string, contract: string): unknown[] => {
  const { data } = find(events, name, contract);
  if (!Array.isArray(data)) throw new MissingEffect(`expected the ${name} event from ${contract} to carry a tuple`);
  return data;
};
const big = (v: unknown) => BigInt(v as bigint);
const ctx = (p: PreparedTransaction) => p.context as Record<string, string | number | null>;

/**
 * What a V2 cancel_listing gave back: the escrow returns as a participation-token `transfer(splitter, seller)`
 * (docs/contracts.md §3.1 "returns escrow", PT event shape §8: `[transfer, from, to]` → i128), so the chain says how
 * many shares came back even when a sale landed between prepare and submit. V1 holds no escrow and its `canceled`
 * event carries no amount: null, and the caller keeps the figure read from get_listing at prepare.
 */
export function sharesReturned(events: readonly DecodedEvent[], pool: string, seller: string): bigint | null {
  const escrow = events.find((x) => x.name === 'transfer' && x.contractId !== pool && x.topics.length === 2 && x.topics[0] === pool && x.topics[1] === seller);
  return escrow ? big(escrow.data) : null;
}

/**
 * The submit response of each flow (the OpenAPI document), from what the transaction did (its events) plus what was prepared.
 * `listedEventId` is the getEvents id of the `listed` event, from which sale_address derives (docs/decisions.md#d2).
 */
export function submitResponse(
  p: PreparedTransaction,
  hash: string,
  events: readonly DecodedEvent[],
  explorerUrl: string,
  listedEventId?: string,
): Record<string, unknown> {
  const c = ctx(p);
  const decimals = Number(c.decimals ?? 7);
  const pool = String(c.pool);
  const common = { transaction_hash: hash };
  switch (p.kind) {
    case 'buy': {
      // sold(seller, buyer) → (shares_amount, total_price, payment_token), docs/contracts.md §2.4 / §3.3
      const [shares, total] = tupleOf(events, 'sold', pool);
      return {
        ...common,
        listing_id: c.listing_id,
        shares_bought: Number(big(shares)),
        total_cost: formatAmount(big(total), decimals),
        payment_token: c.token_symbol,
        stellar_explorer_url: explorerUrl,
      };
    }
    case 'list': {
      const [shares, price] = tupleOf(events, 'listed', pool);
      const seller = String(find(events, 'listed', pool).topics[0]);
      return {
        ...common,
        sale_address: listedEventId ? saleAddress(p.networkId, pool, seller, listedEventId) : null,
        pool_address: pool,
        shares_listed: Number(big(shares)),
        price_per_share: formatAmount(big(price), decimals),
        payment_token: c.token_symbol,
        stellar_explorer_url: explorerUrl,
      };
    }
    case 'cancel': {
      const seller = String(find(events, 'canceled', pool).topics[0]);
      return {
        ...common,
        listing_id: c.listing_id,
        shares_returned: Number(sharesReturned(events, pool, seller) ?? BigInt(String(c.shares_returned))),
        stellar_explorer_url: explorerUrl,
      };
    }
    case 'contribute': {
      // cf_ctrb(investor) → (shares_amount, payment, total_shares_sold_after), docs/contracts.md §4.4
      const [shares, payment, soldAfter] = tupleOf(events, 'cf_ctrb', pool).map(big);
      const raised = soldAfter * BigInt(String(c.price_per_share));
      return {
        ...common,
        pool_address: pool,
        amount_contributed: formatAmount(payment, decimals),
        payment_token: c.token_symbol,
        shares_allocated: Number(shares),
        new_total_raised: formatAmount(raised, decimals),
        progress_percent: progressPercent(raised, BigInt(String(c.target))),
        stellar_explorer_url: explorerUrl,
      };
    }
    case 'reclaim': {
      // cf_rfnd(investor) → (shares, refund_amount)
      const [shares, refund] = tupleOf(events, 'cf_rfnd', pool).map(big);
      return {
        ...common,
        pool_address: pool,
        amount_reclaimed: formatAmount(refund, decimals),
        payment_token: c.token_symbol,
        shares_refunded: Number(shares),
        stellar_explorer_url: explorerUrl,
      };
    }
  }
}
