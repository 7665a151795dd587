import type { PreparedTrade } from '@dobprotocol/agent-client';

const s = (v: unknown) => (v === undefined || v === null ? '?' : String(v));

/**
 * One sentence a person (or an LLM) can check before signing: what moves, in which pool, at what price, by when.
 * `pool` is the invoked contract, for the kinds whose details do not name it (buy, cancel).
 */
export function summarizeTrade(prepared: PreparedTrade, pool: string): string {
  const d = prepared.details;
  const token = s(d.payment_token);
  const until = `Valid until ${prepared.expiresAt}.`;
  switch (prepared.kind) {
    case 'buy':
      return `Buy ${s(d.shares)} shares of pool ${pool} from listing ${s(d.listing_id)} (seller ${s(d.seller_address)}) at ${s(d.price_per_share)} ${token} per share: total ${s(d.total_cost)} ${token}. ${until}`;
    case 'list':
      return `List ${s(d.shares_amount)} shares of pool ${pool} for sale at ${s(d.price_per_share)} ${token} per share (total ${s(d.total_listing_value)} ${token}); the shares are escrowed until sold or cancelled. ${until}`;
    case 'cancel':
      return `Cancel listing ${s(d.listing_id)} in pool ${pool}: ${s(d.shares_returned)} unsold shares return to the wallet. ${until}`;
    case 'contribute':
      return `Contribute ${s(d.amount)} ${token} to the crowdfunding campaign ${s(d.pool_name)} (${pool}) for about ${s(d.estimated_shares)} shares; raised ${s(d.current_raised)} of ${s(d.target_amount)} ${token}, ${s(d.progress_after_contribution)}% after this; deadline ${s(d.deadline)}. ${until}`;
    case 'reclaim':
      return `Reclaim ${s(d.amount)} ${token} (${s(d.shares)} shares) from the failed campaign ${s(d.pool_name)} (${pool}). ${until}`;
  }
}
