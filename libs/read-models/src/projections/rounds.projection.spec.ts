import { ProjectionSpec } from '../../../projections/src/testing/projection-specification';
import { ALICE, BOB, chainAt, onChain, PARTICIPATION_TOKEN, POOL, TOKEN, v2PoolInitialized } from '../testing/spec-events';
import { roundsProjection } from './rounds.projection';

const spec = ProjectionSpec.for(roundsProjection);
const v2Pool = [
  v2PoolInitialized(1),
  onChain(2, 'ParticipationTokenMinted', { pool: POOL, token: PARTICIPATION_TOKEN, admin: POOL, to: ALICE, amount: '750' }),
  onChain(3, 'ParticipationTokenMinted', { pool: POOL, token: PARTICIPATION_TOKEN, admin: POOL, to: BOB, amount: '250' }),
];
const created = onChain(4, 'RoundCreated', {
  round_id: '1',
  token: TOKEN,
  total_amount: '1000000',
  claimable_from: '2026-01-02T00:00:00.000Z',
  expires_at: '2026-01-09T00:00:00.000Z',
  claimable_from_unix: String(Date.UTC(2026, 0, 2) / 1000),
  expires_at_unix: String(Date.UTC(2026, 0, 9) / 1000),
});
const round = {
  network_id: 9,
  pool: POOL,
  round_id: 1,
  pool_version: '2',
  token: TOKEN,
  total_amount: 1_000_000n,
  total_shares: 1000n,
  total_claimed: 0n,
  claim_count: 0,
  reclaimed: null,
  created_at: chainAt(4).closed_at,
  claimable_from: '2026-01-02T00:00:00.000Z',
  expires_at: '2026-01-09T00:00:00.000Z',
  tx_hash: chainAt(4).tx_hash,
};

describe('rounds projection', () => {
  it('given a V2 pool with 1000 shares, when a round is created, then it snapshots the supply', async () => {
    await spec
      .given(...v2Pool)
      .when(created)
      .then({ rounds: [round], claims: [] });
  });

  it('given a round, when a holder claims and the admin reclaims the rest, then the round carries both', async () => {
    await spec
      .given(...v2Pool, created)
      .when(
        onChain(5, 'RoundClaimed', { shareholder: ALICE, round_id: '1', token: TOKEN, amount: '750000' }),
        onChain(6, 'RoundReclaimed', { round_id: '1', token: TOKEN, unclaimed: '250000' }),
      )
      .then({
        rounds: [{ ...round, total_claimed: 750_000n, claim_count: 1, reclaimed: 250_000n }],
        claims: [{ network_id: 9, pool: POOL, round_id: 1, holder: ALICE, token: TOKEN, amount: 750_000n, claimed_at: chainAt(5).closed_at }],
      });
  });

  it('given V1 credits, when dist_all closes the round, then round 0 is claimable at once, never expires, and the credits are its claims', async () => {
    await spec
      .given(onChain(1, 'DistributionAllocated', { shareholder: ALICE, token: TOKEN, amount: '600' }))
      .when(
        onChain(2, 'DistributionAllocated', { shareholder: BOB, token: TOKEN, amount: '400' }),
        onChain(3, 'DistributionCompleted', { token: TOKEN, total_distributed: '1000' }),
      )
      .then({
        rounds: [
          {
            network_id: 9,
            pool: POOL,
            round_id: 0,
            pool_version: '1',
            token: TOKEN,
            total_amount: 1000n,
            total_shares: 10_000n,
            total_claimed: 1000n,
            claim_count: 2,
            reclaimed: null,
            created_at: chainAt(3).closed_at,
            claimable_from: chainAt(3).closed_at,
            expires_at: null,
            tx_hash: chainAt(3).tx_hash,
          },
        ],
        claims: [
          { network_id: 9, pool: POOL, round_id: 0, holder: ALICE, token: TOKEN, amount: 600n, claimed_at: chainAt(3).closed_at },
          { network_id: 9, pool: POOL, round_id: 0, holder: BOB, token: TOKEN, amount: 400n, claimed_at: chainAt(3).closed_at },
        ],
        totals: [{ network_id: 9, pool: POOL, total_shares: 0n, v1_rounds: 1 }],
      });
  });

  it("given a V2 pool's mints, when shares move between holders, then the pool's total stays what the mints made it", async () => {
    const moved = (n: number, from: string, to: string, amount: string) =>
      onChain(n, 'ParticipationTokenTransferred', { pool: POOL, token: PARTICIPATION_TOKEN, from, to, amount });
    await spec
      .given(...v2Pool)
      .when(moved(4, ALICE, BOB, '100'), moved(5, BOB, ALICE, '30'))
      .then({ totals: [{ network_id: 9, pool: POOL, total_shares: 1000n, v1_rounds: 0 }] });
  });

  it('given no event of a pool, when shares of it move, then its total is there, at zero', async () => {
    await spec
      .given()
      .when(onChain(1, 'ParticipationTokenTransferred', { pool: POOL, token: PARTICIPATION_TOKEN, from: ALICE, to: BOB, amount: '5' }))
      .then({ totals: [{ network_id: 9, pool: POOL, total_shares: 0n, v1_rounds: 0 }] });
  });

  it('given a withdrawal, when the holder withdraws again, then withdrawals add up', async () => {
    const withdrawn = (n: number, amount: string) => onChain(n, 'AllocationWithdrawn', { shareholder: BOB, token: TOKEN, amount });
    await spec
      .given(withdrawn(1, '100'))
      .when(withdrawn(2, '50'))
      .then({ withdrawals: [{ network_id: 9, pool: POOL, holder: BOB, token: TOKEN, amount: 150n }] });
  });
});
