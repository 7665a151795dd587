import { chainEventCatalog, isChainEvent, isEventOf, type ChainEvent } from './chain-catalog';

describe('the catalog as a discriminated union', () => {
  it('narrows by type name: every catalog type is a chain event, anything else is not', () => {
    for (const d of chainEventCatalog()) expect(isChainEvent({ type: d.type, data: {} })).toBe(true);
    expect(isChainEvent({ type: 'ApiKeyCreated', data: {} })).toBe(false);
    expect(isEventOf({ type: 'ListingSold', data: {} }, ['ListingCreated', 'ListingSold'])).toBe(true);
    expect(isEventOf({ type: 'ListingCancelled', data: {} }, ['ListingCreated', 'ListingSold'])).toBe(false);
  });

  it('gives each type its own payload at compile time (this file does not typecheck if the union collapses)', () => {
    const summary = (e: ChainEvent): string => {
      switch (e.type) {
        case 'ListingSold':
          return `${e.data.shares_sold} sold to ${e.data.buyer}`;
        case 'PoolLocked':
          // @ts-expect-error PoolLocked carries no shares
          return String(e.data.shares_sold);
        default:
          return e.type;
      }
    };
    const sold = { type: 'ListingSold', data: { shares_sold: '5', buyer: 'G…' } } as unknown as ChainEvent;
    expect(summary(sold)).toBe('5 sold to G…');
  });
});
