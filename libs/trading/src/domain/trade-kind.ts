/** The five prepare → sign → submit flows; `reclaim` is our addition (crowdfunding `refund`, docs/decisions.md#d10). */
export const TRADE_KINDS = ['buy', 'list', 'cancel', 'contribute', 'reclaim'] as const;
export type TradeKind = (typeof TRADE_KINDS)[number];
