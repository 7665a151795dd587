import { createHash } from 'node:crypto';
import { type Keypair, nativeToScVal, xdr } from '@stellar/stellar-sdk';
import { addr as scAddress } from '../host/scval';
import type { DevnetChain } from '../chain/devnet-chain';
import { devnetKeypair } from '../devnet-identities';
import { FAUCET_XLM_STROOPS } from '../faucet/faucet';
import type { ContractKind } from '../host/host.port';
import { Prng } from './prng';
import { ACCESS_TYPES, capTable, DISTRIBUTION_TYPES, poolName } from './seed-catalog';
import { type SeedCall, SeedSubmitter } from './seed-submitter';
import { POOL_TYPES, seedSplitterV2 } from './seed-v2';
import { seedOpenCampaigns } from './seed-open-campaigns';

/** Off-chain metadata of a seeded pool, as the indexer's pool registry consumes it (written to pools.json). */
export interface SeededPool {
  readonly pool_address: string;
  readonly contract_kind: ContractKind;
  readonly name: string;
  readonly ticker: string;
  readonly access_type: (typeof ACCESS_TYPES)[number];
  readonly distribution_type: (typeof DISTRIBUTION_TYPES)[number];
  readonly estimated_apr: string;
  readonly max_participants: number;
  readonly token_to_distribute: string;
  readonly created_at: string;
  /** Splitter V2 only: the pool's participation token (its share ledger). */
  readonly participation_token?: string;
  /** Splitter V2 only: PoolType (reward | payroll | treasury | crowdfunding). */
  readonly pool_type?: (typeof POOL_TYPES)[number];
}

export interface SeedOptions {
  readonly seed: number;
  readonly paymentToken: string;
  readonly issuer: Keypair;
  /** Keep generating activity until about this many contract events exist (benchmarks). */
  readonly events?: number;
  /** Progress callback for long runs (events so far). */
  readonly onProgress?: (events: number) => void;
}

export interface SeedResult {
  readonly pools: SeededPool[];
  readonly campaigns: readonly { readonly address: string; readonly outcome: 'succeeded' | 'failed' | 'open' | 'closing'; readonly createdAt: string }[];
  readonly events: number;
  readonly transactions: number;
}

const USDC = 10_000_000n; // 7 decimals
const DAY = 86_400n;
/** Seeded history starts this far in the past, so that after seeding the chain clock is back at wall time. */
export const SEED_HISTORY_SECONDS = 120n * DAY;

interface PoolState {
  readonly address: string;
  readonly admin: Keypair;
  readonly holders: Keypair[];
  readonly shares: Map<string, bigint>;
}

/** Keypair.publicKey() re-encodes the strkey every call; the bulk rounds ask for the same keys millions of times. */
const publicKeys = new WeakMap<Keypair, string>();
function publicKeyOf(k: Keypair): string {
  let g = publicKeys.get(k);
  if (!g) {
    g = k.publicKey();
    publicKeys.set(k, g);
  }
  return g;
}
const addr = (a: string | Keypair) => scAddress(typeof a === 'string' ? a : publicKeyOf(a));
const i128 = (n: bigint) => nativeToScVal(n, { type: 'i128' });
const shareData = (holder: string, share: bigint) =>
  xdr.ScVal.scvMap([
    xdr.ScMapEntry.fromXdrObject({ key: xdr.ScVal.scvSymbol('share').toXdrObject(), val: i128(share).toXdrObject() } as Parameters<
      typeof xdr.ScMapEntry.fromXdrObject
    >[0]),
    xdr.ScMapEntry.fromXdrObject({ key: xdr.ScVal.scvSymbol('shareholder').toXdrObject(), val: addr(holder).toXdrObject() } as Parameters<
      typeof xdr.ScMapEntry.fromXdrObject
    >[0]),
  ]);

/**
 * Builds realistic DobProtocol history on an empty chain, entirely through signed transactions applied by the
 * chain: V1.2 and V1.3 splitter pools of every access/distribution type, share transfers, listings with partial and
 * full sales and cancellations, distribution rounds and withdrawals, crowdfunding campaigns that succeed
 * (finalize → propose → activate) and fail (finalize → refunds), and two still open at wall time (one closing
 * minutes after it). Deterministic for a given seed and wall time.
 * Contract deployment itself is a devnet admin op (the chain runs no wasm uploads); everything after is a tx.
 */
export function seedDevnet(chain: DevnetChain, options: SeedOptions): SeedResult {
  const rng = new Prng(options.seed);
  const submit = new SeedSubmitter(chain);
  // The wall clock when seeding ends: the chain runs SEED_HISTORY_SECONDS behind it while seeding.
  const historyEnd = chain.nextLedgerInfo().closeTime + SEED_HISTORY_SECONDS;
  const token = options.paymentToken;
  const label = (what: string) => devnetKeypair(`seed-${options.seed}/${what}`);
  const salt = (what: string) => createHash('sha256').update(`dob-devnet/seed-${options.seed}/${what}`).digest();

  const fund = (keys: Keypair[], usdc: bigint) => {
    for (const key of keys) {
      chain.createAccount(key.publicKey(), FAUCET_XLM_STROOPS);
      if (usdc > 0n) submit.call({ signer: options.issuer, contractId: token, fn: 'mint', args: [addr(key), i128(usdc)] });
    }
  };
  const investors = Array.from({ length: 6 }, (_, i) => label(`investor-${i}`));
  fund(investors, 200_000n * USDC);

  const pools: SeededPool[] = [];
  const states: PoolState[] = [];
  const basePools = 8;
  const scalePools = options.events ? Math.min(48, Math.ceil(options.events / 50_000)) : 0;
  for (let i = 0; i < basePools + scalePools; i++) {
    // V1.3 caps distribute_tokens at 50 holders, so large scale pools are V1.2.
    const kind: ContractKind = i % 2 === 0 || i >= basePools ? 'splitter_v1_2' : 'splitter_v1_3';
    const admin = label(`pool-${i}/admin`);
    // Scale pools (benchmarks) have larger cap tables: every distribution then pays out to 20–40 holders.
    const scale = i >= basePools;
    const holders = Array.from({ length: scale ? rng.int(20, 40) : rng.int(3, 6) }, (_, h) => label(`pool-${i}/holder-${h}`));
    fund([admin], 1_000_000n * USDC);
    fund(holders, scale ? 0n : 1_000n * USDC);
    const address = chain.deployContract(kind, salt(`pool-${i}`));
    const table = capTable(rng, holders.length, 10_000n);
    const init = submit.call({
      signer: admin,
      contractId: address,
      fn: 'init',
      args: [addr(admin), xdr.ScVal.scvVec(holders.map((h, k) => shareData(h.publicKey(), table[k]))), xdr.ScVal.scvBool(i % 5 !== 4)],
    });
    states.push({ address, admin, holders, shares: new Map(holders.map((h, k) => [h.publicKey(), table[k]])) });
    pools.push({
      pool_address: address,
      contract_kind: kind,
      ...poolName(rng, i),
      access_type: ACCESS_TYPES[i % ACCESS_TYPES.length],
      distribution_type: DISTRIBUTION_TYPES[i % DISTRIBUTION_TYPES.length],
      estimated_apr: (rng.int(40, 180) / 10).toFixed(1),
      max_participants: rng.pick([25, 50, 100, 250, 500]),
      token_to_distribute: token,
      created_at: new Date(Number(init.createdAt) * 1000).toISOString(),
    });
  }

  for (const [i, pool] of states.slice(0, basePools).entries())
    scriptedActivity(submit, rng, pool, investors[i % investors.length], investors[(i + 1) % investors.length], token);
  const campaigns = seedCampaigns(chain, submit, rng, { token, investors, label, salt, splitters: states.slice(0, 2) });
  // A campaign is listed like a pool (its pool_address is the crowdfunding contract).
  campaigns.forEach((campaign, k) => {
    const i = basePools + scalePools + k;
    pools.push({
      pool_address: campaign.address,
      contract_kind: 'crowdfunding_v1',
      ...poolName(rng, i),
      access_type: ACCESS_TYPES[i % ACCESS_TYPES.length],
      distribution_type: DISTRIBUTION_TYPES[i % DISTRIBUTION_TYPES.length],
      estimated_apr: (rng.int(60, 200) / 10).toFixed(1),
      max_participants: 100,
      token_to_distribute: token,
      created_at: campaign.createdAt,
    });
  });

  // Splitter V2 pools (their own PRNG stream, so the V1 history above stays what it was before V2 was seeded).
  const v2rng = new Prng(options.seed ^ 0x5eed_0002);
  const v2 = seedSplitterV2({ chain, submit, rng: v2rng, token, investors, label, salt, historyEnd });
  v2.pools.forEach((pool, k) => {
    const i = basePools + scalePools + campaigns.length + k;
    pools.push({
      pool_address: pool.address,
      contract_kind: 'splitter_v2',
      ...poolName(v2rng, i),
      access_type: ACCESS_TYPES[i % ACCESS_TYPES.length],
      distribution_type: DISTRIBUTION_TYPES[i % DISTRIBUTION_TYPES.length],
      estimated_apr: (v2rng.int(40, 180) / 10).toFixed(1),
      max_participants: v2rng.pick([25, 50, 100, 250, 500]),
      token_to_distribute: token,
      created_at: new Date(Number(pool.createdAt) * 1000).toISOString(),
      participation_token: pool.participationToken,
      pool_type: pool.poolType,
    });
  });
  const v2CampaignIndex = basePools + scalePools + campaigns.length + v2.pools.length;
  pools.push({
    pool_address: v2.campaign.address,
    contract_kind: 'crowdfunding_v1',
    ...poolName(v2rng, v2CampaignIndex),
    access_type: ACCESS_TYPES[v2CampaignIndex % ACCESS_TYPES.length],
    distribution_type: DISTRIBUTION_TYPES[v2CampaignIndex % DISTRIBUTION_TYPES.length],
    estimated_apr: (v2rng.int(60, 200) / 10).toFixed(1),
    max_participants: 100,
    token_to_distribute: token,
    created_at: new Date(Number(v2.campaign.createdAt) * 1000).toISOString(),
  });
  // Campaigns still open at wall time (their own PRNG stream: the history above stays what it was).
  const openRng = new Prng(options.seed ^ 0x5eed_0003);
  const open = seedOpenCampaigns({ chain, submit, rng: openRng, token, investors, label, salt, historyEnd });
  open.forEach((campaign, k) => {
    const i = v2CampaignIndex + 1 + k;
    pools.push({
      pool_address: campaign.address,
      contract_kind: 'crowdfunding_v1',
      ...poolName(openRng, i),
      access_type: 'p',
      distribution_type: DISTRIBUTION_TYPES[i % DISTRIBUTION_TYPES.length],
      estimated_apr: (openRng.int(60, 200) / 10).toFixed(1),
      max_participants: 100,
      token_to_distribute: token,
      created_at: new Date(Number(campaign.createdAt) * 1000).toISOString(),
    });
  });
  const allCampaigns = [
    ...campaigns,
    { address: v2.campaign.address, outcome: 'succeeded' as const, createdAt: new Date(Number(v2.campaign.createdAt) * 1000).toISOString() },
    ...open.map((c) => ({ address: c.address, outcome: c.role, createdAt: new Date(Number(c.createdAt) * 1000).toISOString() })),
  ];

  if (options.events) {
    while (chain.history.eventCount < options.events) {
      scaleRound(submit, rng, states, token);
      options.onProgress?.(chain.history.eventCount);
    }
  }
  return { pools, campaigns: allCampaigns, events: chain.history.eventCount, transactions: submit.transactions };
}

function largestHolder(pool: PoolState): Keypair {
  return pool.holders.reduce((a, b) => ((pool.shares.get(publicKeyOf(a)) ?? 0n) >= (pool.shares.get(publicKeyOf(b)) ?? 0n) ? a : b));
}

function moveShares(pool: PoolState, from: string, to: string, amount: bigint) {
  pool.shares.set(from, (pool.shares.get(from) ?? 0n) - amount);
  pool.shares.set(to, (pool.shares.get(to) ?? 0n) + amount);
}

/** Per pool: a share transfer, a listing sold in two parts, a cancelled listing, a distribution and a withdrawal. */
function scriptedActivity(submit: SeedSubmitter, rng: Prng, pool: PoolState, buyerA: Keypair, buyerB: Keypair, token: string) {
  const seller = largestHolder(pool);
  const other = pool.holders.find((h) => h !== seller)!;
  const transfer = BigInt(rng.int(10, 200));
  submit.call({ signer: seller, contractId: pool.address, fn: 'transfer_shares', args: [addr(seller), addr(other), i128(transfer)] });
  moveShares(pool, seller.publicKey(), other.publicKey(), transfer);

  const listed = BigInt(rng.int(200, 800));
  const price = BigInt(rng.int(5, 50)) * (USDC / 10n);
  submit.call({ signer: seller, contractId: pool.address, fn: 'list_shares_for_sale', args: [addr(seller), i128(listed), i128(price), addr(token)] });
  const partial = listed / 3n;
  submit.call({ signer: buyerA, contractId: pool.address, fn: 'buy_shares', args: [addr(buyerA), addr(seller), i128(partial)] });
  moveShares(pool, seller.publicKey(), buyerA.publicKey(), partial);
  submit.call({ signer: buyerB, contractId: pool.address, fn: 'buy_shares', args: [addr(buyerB), addr(seller), i128(listed - partial)] });
  moveShares(pool, seller.publicKey(), buyerB.publicKey(), listed - partial);

  const canceller = other;
  submit.call({ signer: canceller, contractId: pool.address, fn: 'list_shares_for_sale', args: [addr(canceller), i128(10n), i128(price), addr(token)] });
  submit.call({ signer: canceller, contractId: pool.address, fn: 'cancel_listing', args: [addr(canceller)] });

  // One listing stays open, for agents (and tests) to buy from.
  submit.call({
    signer: canceller,
    contractId: pool.address,
    fn: 'list_shares_for_sale',
    args: [addr(canceller), i128(BigInt(rng.int(20, 60))), i128(price), addr(token)],
  });

  const round = BigInt(rng.int(100, 5_000)) * USDC;
  submit.call({ signer: pool.admin, contractId: token, fn: 'transfer', args: [addr(pool.admin), addr(pool.address), i128(round)] });
  submit.call({ signer: pool.admin, contractId: pool.address, fn: 'distribute_tokens', args: [addr(token)] });
  submit.call({ signer: other, contractId: pool.address, fn: 'withdraw_allocation', args: [addr(token), addr(other), i128(1n * USDC)] });
}

/** One ledger per pool pair of calls with distinct signers: admin funds/distributes while a holder moves shares. */
function scaleRound(submit: SeedSubmitter, rng: Prng, pools: readonly PoolState[], token: string) {
  const deposit: SeedCall[] = [];
  const distribute: SeedCall[] = [];
  for (const pool of pools) {
    deposit.push({
      reuseFootprint: true,
      signer: pool.admin,
      contractId: token,
      fn: 'transfer',
      args: [addr(pool.admin), addr(pool.address), i128(BigInt(rng.int(10, 500)) * USDC)],
    });
    distribute.push({ reuseFootprint: true, signer: pool.admin, contractId: pool.address, fn: 'distribute_tokens', args: [addr(token)] });
    const from = largestHolder(pool);
    const to = rng.pick(pool.holders.filter((h) => h !== from));
    const amount = BigInt(rng.int(1, 5));
    (rng.next() < 0.5 ? deposit : distribute).push({
      reuseFootprint: true,
      signer: from,
      contractId: pool.address,
      fn: 'transfer_shares',
      args: [addr(from), addr(to), i128(amount)],
    });
    moveShares(pool, publicKeyOf(from), publicKeyOf(to), amount);
  }
  submit.ledger(deposit);
  submit.ledger(distribute);
}

function seedCampaigns(
  chain: DevnetChain,
  submit: SeedSubmitter,
  rng: Prng,
  ctx: { token: string; investors: Keypair[]; label: (w: string) => Keypair; salt: (w: string) => Buffer; splitters: readonly PoolState[] },
): SeedResult['campaigns'] {
  const out: { address: string; outcome: 'succeeded' | 'failed'; createdAt: string }[] = [];
  for (const outcome of ['succeeded', 'failed'] as const) {
    const admin = ctx.label(`campaign-${outcome}/admin`);
    chain.createAccount(admin.publicKey(), FAUCET_XLM_STROOPS);
    const address = chain.deployContract('crowdfunding_v1', ctx.salt(`campaign-${outcome}`));
    const price = 1n * USDC;
    const soft = 1_000n;
    const deadline = chain.nextLedgerInfo().closeTime + 14n * DAY;
    const init = submit.call({
      signer: admin,
      contractId: address,
      fn: 'init',
      args: [addr(admin), addr(ctx.token), i128(price), i128(soft), i128(5_000n), xdr.ScVal.scvU64(deadline), xdr.ScVal.scvU32(0)],
    });
    const investors = ctx.investors.slice(0, 4);
    const each = outcome === 'succeeded' ? BigInt(rng.int(300, 600)) : BigInt(rng.int(50, 200));
    submit.ledger(investors.map((inv) => ({ signer: inv, contractId: address, fn: 'contribute', args: [addr(inv), i128(each)] })));
    // Time control: the next ledger closes after the deadline.
    submit.call({ signer: admin, contractId: address, fn: 'finalize', args: [] }, deadline + 60n);
    if (outcome === 'succeeded') {
      const splitter = ctx.splitters[0].address;
      submit.call({ signer: admin, contractId: address, fn: 'propose_activation', args: [addr(splitter)] });
      submit.call({ signer: admin, contractId: address, fn: 'activate', args: [addr(splitter)] });
    } else {
      submit.ledger(investors.map((inv) => ({ signer: inv, contractId: address, fn: 'refund', args: [addr(inv)] })));
    }
    out.push({ address, outcome, createdAt: new Date(Number(init.createdAt) * 1000).toISOString() });
  }
  return out;
}
