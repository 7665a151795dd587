import { ChainScenario, accountAddr, contractAddr } from '../libs/read-models/src/testing/chain-scenario';

export const POOLS = 60;
export const HOLDERS_PER_POOL = 5;

/** The read-API benchmark's world: POOLS V2 pools, each with holders and one active listing per holder. */
export function benchWorld(): ChainScenario {
  const s = new ChainScenario(9);
  const usdc = contractAddr('usdc');
  for (let i = 0; i < POOLS; i++) {
    const pool = contractAddr(`bench-pool-${i}`);
    const pt = { pool, token: contractAddr(`bench-pt-${i}`) };
    s.registry('PoolRegistered', pool, {
      name: `Bench Pool ${i}`,
      ticker: `BP${i}`,
      access_type: ['rtj', 'p', 'qr', 'stk'][i % 4],
      distribution_type: 'tr',
      estimated_apr: String((i * 7) % 25),
      max_participants: 100,
      token_to_distribute: 'USDC',
    });
    for (let h = 0; h < HOLDERS_PER_POOL; h++) {
      s.chain('ParticipationTokenMinted', pt.token, { ...pt, admin: pool, to: accountAddr(`holder-${h}`), amount: String(200_000 + h) });
    }
    s.chain('PoolInitialized', pool, {
      pool_version: '2',
      contract_version: '2',
      admin: accountAddr('admin'),
      shares_len: HOLDERS_PER_POOL,
      mutable: true,
      participation_token: pt.token,
      pool_type: 'reward',
      pool_type_code: 0,
    });
    for (let h = 0; h < HOLDERS_PER_POOL; h++) {
      s.chain('ListingCreated', pool, {
        pool,
        seller: accountAddr(`holder-${h}`),
        shares_amount: String(100 + h),
        price_per_share: String(10_000_000 + i * 1000 + h),
        payment_token: usdc,
      });
    }
  }
  return s;
}
