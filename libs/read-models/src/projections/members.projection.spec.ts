import { ProjectionSpec } from '../../../projections/src/testing/projection-specification';
import { ALICE, BOB, chainAt, onChain, PARTICIPATION_TOKEN, POOL, v2PoolInitialized } from '../testing/spec-events';
import { membersProjection, poolStatsChange } from './members.projection';

describe('poolStatsChange', () => {
  it.each([
    [0n, 5n, 1, 5n], // joins
    [5n, 0n, -1, -5n], // leaves
    [5n, 8n, 0, 3n],
    [8n, 5n, 0, -3n],
    [0n, -2n, 0, 0n], // a negative balance is no member and no supply
    [-2n, 3n, 1, 3n],
    [3n, -2n, -1, -3n],
  ])('%s → %s: members %s, shares %s', (before, after, members, shares) => {
    expect(poolStatsChange(before, after)).toEqual({ members, shares });
  });
});

describe('members projection', () => {
  const spec = ProjectionSpec.for(membersProjection);
  const v1Init = onChain(1, 'PoolInitialized', {
    pool_version: '1',
    contract_version: '1.2',
    admin: ALICE,
    shares_len: 2,
    mutable: true,
    participation_token: null,
    pool_type: null,
    pool_type_code: null,
    initial_shares: [
      { shareholder: ALICE, share: '6000' },
      { shareholder: BOB, share: '4000' },
    ],
  });
  const member = (holder: string, shares: bigint, joinedAt: number) => ({ network_id: 9, pool: POOL, holder, shares, joined_at: chainAt(joinedAt).closed_at });

  it('given nothing, when a V1 pool initialises with a cap table, then its holders are members from that ledger', async () => {
    await spec
      .given()
      .when(v1Init)
      .then({
        members: [member(ALICE, 6000n, 1), member(BOB, 4000n, 1)],
        stats: [{ network_id: 9, pool: POOL, member_count: 2, total_shares: 10_000n }],
        versions: [{ network_id: 9, pool: POOL, version: '1' }],
      });
  });

  it('given a V1 pool, when a holder transfers everything, then the sender stays with 0 shares and leaves the count', async () => {
    await spec
      .given(v1Init)
      .when(onChain(2, 'SharesTransferred', { pool: POOL, from: BOB, to: ALICE, shares: '4000', reason: 'direct' }))
      .then({
        members: [member(ALICE, 10_000n, 1), member(BOB, 0n, 1)],
        stats: [{ network_id: 9, pool: POOL, member_count: 1, total_shares: 10_000n }],
      });
  });

  it("given a V1 pool, when shares move between two holders who keep a balance, then the pool's stats stay as they were", async () => {
    await spec
      .given(v1Init)
      .when(
        onChain(2, 'SharesTransferred', { pool: POOL, from: BOB, to: ALICE, shares: '1000', reason: 'direct' }),
        onChain(3, 'SharesTransferred', { pool: POOL, from: ALICE, to: BOB, shares: '2500', reason: 'direct' }),
      )
      .then({
        members: [member(ALICE, 4500n, 1), member(BOB, 5500n, 1)],
        stats: [{ network_id: 9, pool: POOL, member_count: 2, total_shares: 10_000n }],
      });
  });

  it('given a V2 pool with no holder, when one holder sends another shares it does not have, then the pool gets its stats', async () => {
    await spec
      .given(v2PoolInitialized(1))
      .when(onChain(2, 'ParticipationTokenTransferred', { pool: POOL, token: PARTICIPATION_TOKEN, from: ALICE, to: BOB, amount: '5' }))
      .then({
        members: [{ network_id: 9, pool: POOL, holder: ALICE, shares: -5n, joined_at: null }, member(BOB, 5n, 2)],
        stats: [{ network_id: 9, pool: POOL, member_count: 1, total_shares: 5n }],
      });
  });

  it('given a V1 pool, when update_shares replaces the table, then balances become the new table', async () => {
    await spec
      .given(v1Init)
      .when(onChain(2, 'ShareTableUpdated', { shareholder_count: 1, shares: [{ shareholder: BOB, share: '10000' }] }))
      .then({
        members: [member(ALICE, 0n, 1), member(BOB, 10_000n, 1)],
        stats: [{ network_id: 9, pool: POOL, member_count: 1, total_shares: 10_000n }],
      });
  });

  it('given a V2 pool, when its share token mints, then balances follow the token and the splitter record is ignored', async () => {
    const v2Init = v2PoolInitialized(1);
    await spec
      .given(v2Init)
      .when(
        onChain(2, 'ParticipationTokenMinted', { pool: POOL, token: PARTICIPATION_TOKEN, admin: POOL, to: BOB, amount: '500' }),
        onChain(3, 'SharesTransferred', { pool: POOL, from: ALICE, to: BOB, shares: '500', reason: 'direct' }),
      )
      .then({ members: [member(BOB, 500n, 2)], stats: [{ network_id: 9, pool: POOL, member_count: 1, total_shares: 500n }] });
  });
});
