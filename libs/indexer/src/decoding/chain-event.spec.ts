import { draftOf } from './chain-event';

describe('decoder drafts', () => {
  it('are checked against their event type at compile time (this file does not typecheck if they are not)', () => {
    const ok = draftOf('pool-9-C', 'ListingCancelled', { pool: 'C…', seller: 'G…' });
    expect(ok).toEqual({ streamId: 'pool-9-C', type: 'ListingCancelled', data: { pool: 'C…', seller: 'G…' } });
    // @ts-expect-error a ListingCancelled has no shares_amount
    draftOf('pool-9-C', 'ListingCancelled', { pool: 'C…', seller: 'G…', shares_amount: '1' });
    // @ts-expect-error payout_mode is 'escrow' | 'direct_to_owner' | null, not any string
    draftOf('cf-9-C', 'CampaignActivated', { splitter: 'C…', total_raised: '1', payout_mode: 'anything' });
    // @ts-expect-error not a catalog type
    draftOf('pool-9-C', 'PoolCreated', {});
  });
});
