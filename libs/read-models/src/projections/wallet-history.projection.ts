import type { ProjectionDefinition } from '@dob/projections';
import type { SqlExecutor } from '@dob/sql';
import { applyByType, type Chain, type EventHandler } from './apply-by-type';

/**
 * Per-wallet transaction history for the portfolio: share movements, claims, marketplace activity and
 * crowdfunding contributions, one row per (domain event, wallet side). Marketplace share moves are recorded once,
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

interface Entry {
  wallet: string;
  type: HistoryType;
  pool: string;
  counterparty?: string | null;
  shares?: string | null;
  amount?: string | null;
  token?: string | null;
}

function record(map: (d: any, c: Chain) => Entry[]): EventHandler {
  return async (tx, t, e) => {
    const d = e.data;
    const c: Chain = d.chain;
    const entries = map(d, c);
    for (const [i, x] of entries.entries()) {
      await tx.query(
        `INSERT INTO ${t.entries} (event_id, side, network_id, wallet, type, pool, counterparty, shares, amount, token,
                                   tx_hash, occurred_at, chain_event_id)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) ON CONFLICT DO NOTHING`,
        [e.id, i, c.network_id, x.wallet, x.type, x.pool, x.counterparty ?? null, x.shares ?? null, x.amount ?? null, x.token ?? null, c.tx_hash, c.closed_at, c.event_id],
      );
    }
  };
}

export const walletHistoryProjection: ProjectionDefinition<SqlExecutor> = {
  name: WALLET_HISTORY,
  version: 1,
  eventTypes: [
    'SharesTransferred',
    'RoundClaimed',
    'DistributionAllocated',
    'AllocationWithdrawn',
    'ListingCreated',
    'ListingSold',
    'ListingCancelled',
    'CampaignContributed',
    'CampaignOptedOut',
    'CampaignRefunded',
  ],
  tables: ['entries'],
  async setup(tx, t) {
    await tx.exec(`CREATE TABLE ${t.entries} (
      event_id       text        NOT NULL,
      side           int         NOT NULL,
      network_id     int         NOT NULL,
      wallet         text        NOT NULL,
      type           text        NOT NULL,
      pool           text        NOT NULL,
      counterparty   text,
      shares         text,
      amount         text,
      token          text,
      tx_hash        text        NOT NULL,
      occurred_at    timestamptz NOT NULL,
      chain_event_id text        NOT NULL,
      PRIMARY KEY (event_id, side)
    );
    CREATE INDEX ON ${t.entries} (wallet, occurred_at DESC, chain_event_id DESC, event_id, side);`);
  },
  apply: applyByType({
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
      { wallet: d.seller, type: 'listing_created', pool: d.pool, shares: d.shares_amount, amount: (BigInt(d.shares_amount) * BigInt(d.price_per_share)).toString(), token: d.payment_token },
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
