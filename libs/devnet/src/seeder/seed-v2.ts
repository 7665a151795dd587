import type { Keypair } from '@stellar/stellar-sdk';
import type { DevnetChain } from '../chain/devnet-chain';
import { FAUCET_XLM_STROOPS } from '../faucet/faucet';
import { addr, bool, i128, str, struct, u32, u64, vec } from '../host/scval';
import { shareToScVal } from '../contracts/shared/shares';
import type { Prng } from './prng';
import type { SeedSubmitter } from './seed-submitter';

/**
 * Splitter V2 history (docs/contracts.md §3, §5): four pools, one per PoolType (Reward, Payroll, Treasury,
 * Crowdfunding), each with its own participation token (admin = the splitter), all through signed transactions:
 * PT initialize → init_with_type (PT mints) → set_distribution_config (claim delay) → create_distribution rounds that
 * are claimed (claim / claim_all), left to expire and reclaimed, still claimable at wall time, or still pending
 * (claimable_from after wall time); escrowed listings sold partially and fully, cancelled and left open; share
 * transfers. The Crowdfunding pool is fed by a succeeded campaign's activation (escrow payout into the splitter).
 *
 * Timeline (T = start of this phase, E = wall time when seeding ends; needs E − T ≥ 60 days):
 *   T: pools, rounds #0 (claim delay 1 d, expiry 31 d), campaign opens (deadline T + 14 d)
 *   T + 1 d: claims of round #0, marketplace, share transfers
 *   T + 14 d: campaign finalized → proposed → activated into the Crowdfunding pool, its round #0
 *   T + 15 d: the Crowdfunding pool's holders claim_all
 *   T + 32 d: expired rounds #0 reclaimed by the admins
 *   E − 20 d: rounds #1 (claimable at wall time, claimed by some holders after a day)
 *   E − 2 d: a round with a 5-day claim delay on the Reward pool (pending at wall time)
 */
const USDC = 10_000_000n;
const DAY = 86_400n;
const TOTAL_SHARES = 1_000_000n;
export const POOL_TYPES = ['reward', 'payroll', 'treasury', 'crowdfunding'] as const;

export interface SeededV2Pool {
  readonly address: string;
  readonly participationToken: string;
  readonly poolType: (typeof POOL_TYPES)[number];
  readonly admin: Keypair;
  readonly createdAt: bigint;
}

export interface SeededV2 {
  readonly pools: readonly SeededV2Pool[];
  readonly campaign: { readonly address: string; readonly createdAt: bigint };
}

export interface V2Context {
  readonly chain: DevnetChain;
  readonly submit: SeedSubmitter;
  readonly rng: Prng;
  readonly token: string;
  readonly investors: readonly Keypair[];
  readonly label: (what: string) => Keypair;
  readonly salt: (what: string) => Buffer;
  /** Unix seconds the seeded history must end before (the wall clock when seeding ends). */
  readonly historyEnd: bigint;
}

const distributionConfig = (claimDelay: bigint, expiry: bigint) =>
  struct({ claim_delay_seconds: u64(claimDelay), last_distribution_time: u64(0n), min_interval_seconds: u64(0n), round_expiry_seconds: u64(expiry) });

/** A cap table of `holders` summing to exactly `total` (the first holder takes the rounding remainder). */
function proportional(weights: readonly bigint[], total: bigint): bigint[] {
  const sum = weights.reduce((a, b) => a + b, 0n);
  const shares = weights.map((w) => (w * total) / sum);
  shares[0]! += total - shares.reduce((a, b) => a + b, 0n);
  return shares;
}

export function seedSplitterV2(ctx: V2Context): SeededV2 {
  const { chain, submit, rng, token } = ctx;
  const start = chain.latestLedger().closeTime;
  if (ctx.historyEnd - start < 60n * DAY) throw new Error('splitter V2 seeding needs 60 days of history before wall time');
  const at = (t: bigint) => (t > chain.latestLedger().closeTime ? t : undefined);

  // --- the Crowdfunding pool's campaign opens first, so its investors are known ---
  const cfAdmin = ctx.label('campaign-v2/admin');
  chain.createAccount(cfAdmin.publicKey(), FAUCET_XLM_STROOPS);
  const campaign = chain.deployContract('crowdfunding_v1', ctx.salt('campaign-v2'));
  const deadline = chain.nextLedgerInfo().closeTime + 14n * DAY;
  const price = USDC / 10n; // 0.1 USDC per share on the 1,000,000-share scale (CF-d+)
  const cfInit = submit.call({
    signer: cfAdmin,
    contractId: campaign,
    fn: 'init',
    args: [addr(cfAdmin.publicKey()), addr(token), i128(price), i128(200_000n), i128(TOTAL_SHARES), u64(deadline), u32(0)],
  });
  const backers = ctx.investors.slice(0, 4);
  const contributions = backers.map(() => BigInt(rng.int(60_000, 180_000)));
  submit.ledger(backers.map((b, k) => ({ signer: b, contractId: campaign, fn: 'contribute', args: [addr(b.publicKey()), i128(contributions[k]!)] })));

  // --- four pools, one per PoolType ---
  const pools = POOL_TYPES.map((poolType, i) => {
    const admin = ctx.label(`v2-pool-${i}/admin`);
    chain.createAccount(admin.publicKey(), FAUCET_XLM_STROOPS);
    const crowdfunded = poolType === 'crowdfunding';
    const holders = crowdfunded ? [...backers] : Array.from({ length: rng.int(3, 5) }, (_, h) => ctx.label(`v2-pool-${i}/holder-${h}`));
    if (!crowdfunded) for (const h of holders) chain.createAccount(h.publicKey(), FAUCET_XLM_STROOPS);
    // Off-chain cap table of a crowdfunded pool: proportional to the contributions (docs/contracts.md §4.7).
    const table = crowdfunded
      ? proportional(contributions, TOTAL_SHARES)
      : proportional(
          holders.map(() => BigInt(rng.int(1, 100))),
          TOTAL_SHARES,
        );
    const pt = chain.deployContract('participation_token', ctx.salt(`v2-pool-${i}/pt`));
    const address = chain.deployContract('splitter_v2', ctx.salt(`v2-pool-${i}`));
    submit.call({
      signer: admin,
      contractId: pt,
      fn: 'initialize',
      args: [addr(address), u32(0), str(`DOB V2 ${poolType} pool ${i} shares`), str(`DOBV2P${i}`)],
    });
    const init = submit.call({
      signer: admin,
      contractId: address,
      fn: 'init_with_type',
      args: [
        addr(admin.publicKey()),
        vec(holders.map((h, k) => shareToScVal({ shareholder: h.publicKey(), share: table[k]! }))),
        bool(i !== 2),
        addr(pt),
        u32(i),
      ],
    });
    submit.call({ signer: admin, contractId: address, fn: 'set_distribution_config', args: [distributionConfig(DAY, 31n * DAY)] });
    return { address, participationToken: pt, poolType, admin, holders, table, createdAt: init.createdAt };
  });
  const funded = pools.filter((p) => p.poolType !== 'crowdfunding');

  // Admins need USDC for rounds: the issuer is not ours to use here, so the investors fund them (a payment).
  submit.ledger(
    funded.map((p, k) => ({
      signer: ctx.investors[k]!,
      contractId: token,
      fn: 'transfer',
      args: [addr(ctx.investors[k]!.publicKey()), addr(p.admin.publicKey()), i128(20_000n * USDC)],
    })),
  );

  const round = (pool: (typeof pools)[number], amount: bigint) => [
    { signer: pool.admin, contractId: token, fn: 'transfer', args: [addr(pool.admin.publicKey()), addr(pool.address), i128(amount)] },
    { signer: pool.admin, contractId: pool.address, fn: 'create_distribution', args: [addr(token)] },
  ];
  // Rounds #0 (deposit and create in consecutive ledgers: one tx per source per ledger).
  const rounds0 = funded.map((p) => round(p, BigInt(rng.int(500, 3_000)) * USDC));
  submit.ledger(rounds0.map((r) => r[0]!));
  const round0At = submit.ledger(rounds0.map((r) => r[1]!))[0]!.createdAt;

  // T + 1 d: every holder but the last claims round #0 (the last one's part is reclaimed later).
  const claimers = funded.flatMap((p) => p.holders.slice(0, -1).map((h) => ({ p, h })));
  for (let k = 0; k < claimers.length; k += 1) {
    const { p, h } = claimers[k]!;
    submit.call({ signer: h, contractId: p.address, fn: 'claim', args: [addr(h.publicKey()), u64(0n)] }, k === 0 ? at(round0At + DAY + 60n) : undefined);
  }

  // Marketplace and transfers on the Reward and Payroll pools (escrowed listings, docs/contracts.md §3.1).
  for (const p of funded.slice(0, 2)) {
    const [seller, other, buyer] = [p.holders[0]!, p.holders[1]!, ctx.investors[4]!];
    const listed = p.table[0]! / 10n;
    const unit = BigInt(rng.int(5, 40)) * (USDC / 100n);
    submit.call({
      signer: seller,
      contractId: p.address,
      fn: 'transfer_shares',
      args: [addr(seller.publicKey()), addr(other.publicKey()), i128(p.table[0]! / 50n)],
    });
    submit.call({ signer: seller, contractId: p.address, fn: 'list_shares_for_sale', args: [addr(seller.publicKey()), i128(listed), i128(unit), addr(token)] });
    submit.call({ signer: buyer, contractId: p.address, fn: 'buy_shares', args: [addr(buyer.publicKey()), addr(seller.publicKey()), i128(listed / 4n)] });
    submit.call({
      signer: ctx.investors[5]!,
      contractId: p.address,
      fn: 'buy_shares',
      args: [addr(ctx.investors[5]!.publicKey()), addr(seller.publicKey()), i128(listed - listed / 4n)],
    });
    submit.call({ signer: other, contractId: p.address, fn: 'list_shares_for_sale', args: [addr(other.publicKey()), i128(1_000n), i128(unit), addr(token)] });
    submit.call({ signer: other, contractId: p.address, fn: 'cancel_listing', args: [addr(other.publicKey())] });
    // One escrowed listing stays open.
    submit.call({
      signer: other,
      contractId: p.address,
      fn: 'list_shares_for_sale',
      args: [addr(other.publicKey()), i128(BigInt(rng.int(500, 2_000))), i128(unit), addr(token)],
    });
  }

  // T + 14 d: the campaign succeeds and activates into the Crowdfunding pool (escrow payout), which distributes it.
  const cfPool = pools.find((p) => p.poolType === 'crowdfunding')!;
  submit.call({ signer: cfAdmin, contractId: campaign, fn: 'finalize', args: [] }, at(deadline + 60n));
  submit.call({ signer: cfAdmin, contractId: campaign, fn: 'propose_activation', args: [addr(cfPool.address)] });
  submit.call({ signer: cfAdmin, contractId: campaign, fn: 'activate', args: [addr(cfPool.address)] });
  const cfRoundAt = submit.call({ signer: cfPool.admin, contractId: cfPool.address, fn: 'create_distribution', args: [addr(token)] }).createdAt;
  submit.ledger(
    cfPool.holders.map((h) => ({ signer: h, contractId: cfPool.address, fn: 'claim_all', args: [addr(h.publicKey())] })),
    at(cfRoundAt + DAY + 60n),
  );

  // T + 32 d: rounds #0 expired; the admins reclaim what the last holders left.
  submit.ledger(
    funded.map((p) => ({ signer: p.admin, contractId: p.address, fn: 'reclaim_expired_round', args: [u64(0n)] })),
    at(round0At + 32n * DAY),
  );

  // E − 20 d: rounds #1, claimable until after wall time; the first holders claim_all a day later.
  const rounds1 = funded.map((p) => round(p, BigInt(rng.int(500, 3_000)) * USDC));
  submit.ledger(
    rounds1.map((r) => r[0]!),
    at(ctx.historyEnd - 20n * DAY),
  );
  const round1At = submit.ledger(rounds1.map((r) => r[1]!))[0]!.createdAt;
  submit.ledger(
    funded.map((p) => ({ signer: p.holders[0]!, contractId: p.address, fn: 'claim_all', args: [addr(p.holders[0]!.publicKey())] })),
    at(round1At + DAY + 60n),
  );

  // E − 2 d: a longer claim delay on the Reward pool, so its round #2 is still pending at wall time.
  const reward = funded[0]!;
  submit.call(
    { signer: reward.admin, contractId: reward.address, fn: 'set_distribution_config', args: [distributionConfig(5n * DAY, 40n * DAY)] },
    at(ctx.historyEnd - 2n * DAY),
  );
  const [deposit, create] = round(reward, BigInt(rng.int(200, 900)) * USDC);
  submit.call(deposit!);
  submit.call(create!);

  return {
    pools: pools.map(({ address, participationToken, poolType, admin, createdAt }) => ({ address, participationToken, poolType, admin, createdAt })),
    campaign: { address: campaign, createdAt: cfInit.createdAt },
  };
}
