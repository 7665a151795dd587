import type { ChainDerivedEventType, ChainEventData } from '@dob/domain';
import type { DocOf, Fields, ProjectionDefinition } from '@dob/projections';
import { byEventType, type Chain, type EventHandler } from './event-handlers';

/**
 * Per-wallet transaction history for the portfolio: share movements, claims, marketplace activity and
 * crowdfunding contributions, one document per (domain event, wallet side). Marketplace share moves are recorded once,
 * as the sale (shares_sold / shares_bought), not again as a share transfer.
 */
export const WALLET_HISTORY = 'wallet_history';

export const HISTORY_TYPES = [
  'shares_received',
  'shares_sent',
  'shares_allocated',
  'claim',
  'distribution_credited',
  'withdraw',
  'listing_created',
  'listing_cancelled',
  'shares_sold',
  'shares_bought',
  'contribution',
  'opt_out',
  'refund',
] as const;
export type HistoryType = (typeof HISTORY_TYPES)[number];

/** A wallet's history entry, declared once: the store's columns, HistoryRow (the readers') and the API's plain fields follow. */
export const HISTORY_ENTRY_FIELDS = {
  event_id: 'text',
  side: 'int',
  network_id: 'int',
  wallet: 'text',
  type: 'text',
  pool: 'text',
  counterparty: 'text?',
  shares: 'text?',
  amount: 'text?',
  token: 'text?',
  tx_hash: 'text',
  occurred_at: 'timestamp',
  chain_event_id: 'text',
} as const satisfies Fields;
export type HistoryEntryDoc = DocOf<typeof HISTORY_ENTRY_FIELDS>;

/** What an event says for one wallet side (the reducer's per-type mapping): what it does not say is null. */
type Entry = Pick<HistoryEntryDoc, 'wallet' | 'pool'> & { type: HistoryType } & Partial<Pick<HistoryEntryDoc, 'counterparty' | 'shares' | 'amount' | 'token'>>;

/** One document per (domain event, wallet side), keyed by both (exactly-once application makes a write enough). */
function record<K extends ChainDerivedEventType>(map: (d: ChainEventData[K], c: Chain) => Entry[]): EventHandler<K> {
  return (s, e) => {
    const d = e.data;
    const c: Chain = d.chain;
    for (const [i, x] of map(d, c).entries()) {
      const entry: HistoryEntryDoc = {
        event_id: e.id,
        side: i,
        network_id: c.network_id,
        wallet: x.wallet,
        type: x.type,
        pool: x.pool,
        counterparty: x.counterparty ?? null,
        shares: x.shares ?? null,
        amount: x.amount ?? null,
        token: x.token ?? null,
        tx_hash: c.tx_hash,
        occurred_at: c.closed_at,
        chain_event_id: c.event_id,
      };
      s.put('entries', entry);
    }
  };
}

export const walletHistoryProjection: ProjectionDefinition = {
  name: WALLET_HISTORY,
  // v2: a document reducer for both stores.
  version: 2,
  collections: {
    entries: {
      fields: HISTORY_ENTRY_FIELDS,
      key: ['event_id', 'side'],
      indexes: [{ keys: ['wallet', 'occurred_at desc', 'chain_event_id desc', 'event_id', 'side'] }],
    },
  },
  ...byEventType({
    SharesTransferred: record((d) => {
      if (d.reason === 'marketplace_sale') return [];
      if (d.reason === 'crowdfunding_allocation') return [{ wallet: d.to, type: 'shares_allocated', pool: d.pool, shares: d.shares }];
      const out: Entry[] = [{ wallet: d.to, type: 'shares_received', pool: d.pool, counterparty: d.from, shares: d.shares }];
      if (d.from) out.unshift({ wallet: d.from, type: 'shares_sent', pool: d.pool, counterparty: d.to, shares: d.shares });
      return out;
    }),
    RoundClaimed: record((d, c) => [{ wallet: d.shareholder, type: 'claim', pool: c.contract_id, amount: d.amount, token: d.token }]),
    DistributionAllocated: record((d, c) => [{ wallet: d.shareholder, type: 'distribution_credited', pool: c.contract_id, amount: d.amount, token: d.token }]),
    AllocationWithdrawn: record((d, c) => [{ wallet: d.shareholder, type: 'withdraw', pool: c.contract_id, amount: d.amount, token: d.token }]),
    ListingCreated: record((d) => [
      {
        wallet: d.seller,
        type: 'listing_created',
        pool: d.pool,
        shares: d.shares_amount,
        amount: (BigInt(d.shares_amount) * BigInt(d.price_per_share)).toString(),
        token: d.payment_token,
      },
    ]),
    ListingSold: record((d) => [
      { wallet: d.seller, type: 'shares_sold', pool: d.pool, counterparty: d.buyer, shares: d.shares_sold, amount: d.total_price, token: d.payment_token },
      { wallet: d.buyer, type: 'shares_bought', pool: d.pool, counterparty: d.seller, shares: d.shares_sold, amount: d.total_price, token: d.payment_token },
    ]),
    ListingCancelled: record((d) => [{ wallet: d.seller, type: 'listing_cancelled', pool: d.pool }]),
    CampaignContributed: record((d, c) => [{ wallet: d.investor, type: 'contribution', pool: c.contract_id, shares: d.shares, amount: d.payment }]),
    CampaignOptedOut: record((d, c) => [{ wallet: d.investor, type: 'opt_out', pool: c.contract_id, shares: d.shares, amount: d.refund_amount }]),
    CampaignRefunded: record((d, c) => [{ wallet: d.investor, type: 'refund', pool: c.contract_id, shares: d.shares, amount: d.refund_amount }]),
  }),
};
