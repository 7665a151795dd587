/** The five prepare → sign → submit flows; `reclaim` is the brief's addition (crowdfunding `refund`). */
export const TRADE_KINDS = ['buy', 'list', 'cancel', 'contribute', 'reclaim'] as const;
export type TradeKind = (typeof TRADE_KINDS)[number];
