import { createHash } from 'node:crypto';
import { StrKey } from '@stellar/stellar-sdk';
import { unsafeUniformIntDistribution, xoroshiro128plus } from 'pure-rand';
import type { EventStore, StreamAppend } from '@dob/event-store';
import { ChainScenario, accountAddr, contractAddr } from './chain-scenario';
import { roundFields, usdc, v1InitializedFields } from './demo-world';

export interface LargeHistoryOptions {
  /** The same seed and sizes give the same events, ids included. */
  readonly seed: number;
  /** Domain events to write (the last step may overshoot by a few). */
  readonly events: number;
  /** Pools; every third one is a V1 splitter, the others V2 (participation token, rounds, marketplace). */
  readonly pools: number;
  readonly wallets: number;
  /** Crowdfunding campaigns (default pools / 4). */
  readonly campaigns?: number;
  readonly networkId?: number;
}

/** The issue-33 size: 1,000,000 events, 3,000 pools (1,000 V1 + 2,000 V2), 50,000 wallets. */
export const LARGE_HISTORY: LargeHistoryOptions = { seed: 33, events: 1_000_000, pools: 3000, wallets: 50_000 };

/**
 * Seeded draws from pure-rand's xoroshiro128+ (https://github.com/dubzzz/pure-rand): the same seed gives the same
 * history on every machine. `unsafe*` = the generator advances in place, which is what a long loop wants.
 */
function seeded(seed: number): () => number {
  const rng = xoroshiro128plus(seed);
  return () => unsafeUniformIntDistribution(0, 0x3fffffff, rng) / 0x40000000;
}

interface V2Pool {
  readonly addr: string;
  readonly pt: string;
  readonly balances: Map<number, bigint>;
  /** Active listing per seller: shares still for sale and the price. */
  readonly listings: Map<number, { remaining: bigint; price: string }>;
  /** Rounds created so far and, for the open ones, who has claimed. */
  rounds: number;
  open: { id: number; claimed: Set<number> }[];
}

interface V1Pool {
  readonly addr: string;
  /** Basis points per holder (sum 10,000). */
  readonly shares: Map<number, number>;
  readonly allocated: Map<number, bigint>;
  locked: boolean;
}

interface Campaign {
  readonly addr: string;
  readonly softCap: number;
  readonly contributions: Map<number, number>;
  sold: number;
  state: 'open' | 'failed' | 'proposed' | 'activated';
  splitter: string;
}

/**
 * A large, realistic chain history for rebuild benchmarks and tests, reproducible from a seed: pools on both
 * splitter versions with their setup, then interleaved activity — share and participation-token transfers,
 * listings, sales, cancels, push distributions and withdrawals, rounds with claims and reclaims, campaigns with
 * contributions, opt-outs, refunds, finalisations and activations — drawn at random but consistent (a sale sells
 * from a listing that exists, a transfer moves shares the sender holds, a refund returns a contribution). Each
 * step touches every pool at most once per stream, so the events pack into large appendMany calls.
 * Yields the appendMany calls in $all order.
 */
export function* largeHistory(options: LargeHistoryOptions): Generator<StreamAppend[][]> {
  const random = seeded(options.seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
  const int = (n: number) => Math.floor(random() * n);
  const s = new ChainScenario(options.networkId ?? 9, new Date('2025-01-01T00:00:00Z'));
  const token = contractAddr('usdc');
  const issuer = accountAddr('usdc-issuer');
  const admin = accountAddr('admin');
  const walletCache = new Map<number, string>();
  // Public keys straight from a hash: valid G-addresses without deriving 50,000 ed25519 keypairs.
  const wallet = (i: number): string => {
    let w = walletCache.get(i);
    if (!w) walletCache.set(i, (w = StrKey.encodeEd25519PublicKey(createHash('sha256').update(`wallet:${options.seed}:${i}`).digest())));
    return w;
  };
  const anyWallet = () => int(options.wallets);
  const capTable = (p: V1Pool) => [...p.shares].map(([w, share]) => ({ shareholder: wallet(w), share: String(share) }));
  let written = 0;
  const drain = function* (): Generator<StreamAppend[][]> {
    written += s.size;
    yield s.drainBatches(5000);
  };

  const v2: V2Pool[] = [];
  const v1: V1Pool[] = [];
  for (let p = 0; p < options.pools; p++) {
    const addr = contractAddr(`large-${options.seed}-pool-${p}`);
    if (p % 3 === 2) v1.push({ addr, shares: new Map(), allocated: new Map(), locked: false });
    else v2.push({ addr, pt: contractAddr(`large-${options.seed}-pt-${p}`), balances: new Map(), listings: new Map(), rounds: 0, open: [] });
  }
  const campaigns: Campaign[] = Array.from({ length: options.campaigns ?? Math.ceil(options.pools / 4) }, (_, c) => ({
    addr: contractAddr(`large-${options.seed}-cf-${c}`),
    softCap: 1000 + int(4000),
    contributions: new Map(),
    sold: 0,
    state: 'open',
    splitter: (v2.length ? pick(v2) : pick(v1)).addr,
  }));

  // Setup, phase by phase across every pool (one run per stream per phase: large appendMany calls).
  const all = [...v2.map((p) => ({ p, v: 2 as const })), ...v1.map((p) => ({ p, v: 1 as const }))];
  for (const [i, { p, v }] of all.entries()) {
    s.registry('PoolRegistered', p.addr, {
      name: `${v === 2 ? 'Solar' : 'Wind'} ${i}`,
      ticker: `P${i}`,
      access_type: pick(['p', 'rtj', 'qr', 'stk']),
      distribution_type: v === 2 ? 'tr' : 'bt',
      estimated_apr: i % 5 === 0 ? null : `${int(20)}.${int(10)}0`,
      max_participants: i % 3 === 0 ? null : 100 + int(900),
      token_to_distribute: v === 2 ? token : 'USDC',
    });
  }
  for (const { p } of all)
    s.chain('PaymentTokenTransferred', token, { token, party: p.addr, from: issuer, to: p.addr, amount: usdc(10_000 + int(90_000)), asset: `USDC:${issuer}` });
  for (const p of v2) {
    const holders = 2 + int(6);
    for (let h = 0; h < holders; h++) {
      const w = anyWallet();
      const amount = BigInt(10_000 * (1 + int(100)));
      p.balances.set(w, (p.balances.get(w) ?? 0n) + amount);
      s.chain('ParticipationTokenMinted', p.pt, { pool: p.addr, token: p.pt, admin: p.addr, to: wallet(w), amount: String(amount) });
    }
  }
  for (const p of v2) {
    s.chain('PoolInitialized', p.addr, {
      pool_version: '2',
      contract_version: '2',
      admin,
      shares_len: p.balances.size,
      mutable: random() < 0.8,
      participation_token: p.pt,
      pool_type: 'reward',
      pool_type_code: 0,
    });
    s.chain('PoolDistributionConfigured', p.addr, { min_interval_seconds: '3600', claim_delay_seconds: String(600 * int(3)), round_expiry_seconds: '2592000' });
    s.chain('PoolScheduleSet', p.addr, {
      first_distribution_time: String(Math.floor(s.now.getTime() / 1000) + 86_400),
      interval_seconds: '604800',
      total_distributions: int(2) ? 0 : 52,
    });
  }
  for (const p of v1) {
    const a = anyWallet();
    let b = anyWallet();
    if (b === a) b = (a + 1) % options.wallets;
    const first = 1000 * (1 + int(9));
    p.shares.set(a, first).set(b, 10_000 - first);
    s.chain('PoolInitialized', p.addr, v1InitializedFields(admin, capTable(p)));
  }
  for (const c of campaigns) {
    const deadline = new Date(s.now.getTime() + (30 + int(300)) * 86_400_000);
    s.campaign('CampaignCreated', c.addr, {
      contract_version: 'g',
      admin,
      payment_token: token,
      price_per_share: usdc(1),
      soft_cap_shares: String(c.softCap),
      hard_cap_shares: String(c.softCap * 5),
      deadline: deadline.toISOString(),
      deadline_unix: String(Math.floor(deadline.getTime() / 1000)),
      payout_mode: 'escrow',
    });
  }
  yield* drain();

  // Activity: each step every pool and campaign may act once; pool-stream events first, then token-stream ones.
  while (written < options.events) {
    const tokenSide: (() => void)[] = [];
    for (const p of v2) if (random() < 0.5) v2Step(p, tokenSide);
    for (const f of tokenSide) f();
    for (const p of v1) if (random() < 0.5) v1Step(p);
    for (const c of campaigns) if (random() < 0.5) campaignStep(c);
    if (random() < 0.1) {
      const p = pick(all).p;
      s.registry('PoolMetadataUpdated', p.addr, { estimated_apr: `${int(20)}.${int(10)}0` });
    }
    s.advance(600 + int(3600));
    if (s.size >= 5000) yield* drain();
  }
  if (s.size) yield* drain();

  function v2Step(p: V2Pool, tokenSide: (() => void)[]): void {
    const holders = [...p.balances].filter(([, b]) => b > 0n);
    const roll = random();
    const ptTransfer = (from: number, to: number, amount: bigint) =>
      tokenSide.push(() =>
        s.chain('ParticipationTokenTransferred', p.pt, { pool: p.addr, token: p.pt, from: wallet(from), to: wallet(to), amount: String(amount) }),
      );
    const move = (from: number, to: number, amount: bigint) => {
      p.balances.set(from, p.balances.get(from)! - amount);
      p.balances.set(to, (p.balances.get(to) ?? 0n) + amount);
    };
    if (roll < 0.25 && holders.length) {
      // A direct transfer: the pool records the share move, the token its transfer.
      const [from, balance] = pick(holders);
      const to = anyWallet();
      if (to === from) return;
      const amount = 1n + BigInt(int(Number(balance / 2n) + 1));
      if (amount > balance) return;
      move(from, to, amount);
      s.chain('SharesTransferred', p.addr, { pool: p.addr, from: wallet(from), to: wallet(to), shares: String(amount), reason: 'direct' });
      ptTransfer(from, to, amount);
    } else if (roll < 0.45 && holders.length) {
      const [seller, balance] = pick(holders);
      if (p.listings.has(seller)) return;
      const remaining = 1n + BigInt(int(Number(balance)));
      const price = usdc((1 + int(400) / 100).toFixed(2));
      p.listings.set(seller, { remaining, price });
      s.chain('ListingCreated', p.addr, {
        pool: p.addr,
        seller: wallet(seller),
        shares_amount: String(remaining),
        price_per_share: price,
        payment_token: token,
      });
    } else if (roll < 0.65 && p.listings.size) {
      const [seller, listing] = pick([...p.listings]);
      const balance = p.balances.get(seller) ?? 0n;
      const buyer = anyWallet();
      const sold = listing.remaining < balance ? listing.remaining : balance;
      if (buyer === seller || sold <= 0n) return;
      const shares = random() < 0.5 ? sold : 1n + BigInt(int(Number(sold)));
      const left = listing.remaining - shares;
      if (left === 0n) p.listings.delete(seller);
      else listing.remaining = left;
      move(seller, buyer, shares);
      s.chain('ListingSold', p.addr, {
        pool: p.addr,
        seller: wallet(seller),
        buyer: wallet(buyer),
        shares_sold: String(shares),
        total_price: (BigInt(listing.price) * shares).toString(),
        price_per_share: listing.price,
        payment_token: token,
        shares_remaining: left === 0n ? null : String(left),
      });
      s.chain('SharesTransferred', p.addr, { pool: p.addr, from: wallet(seller), to: wallet(buyer), shares: String(shares), reason: 'marketplace_sale' });
      ptTransfer(seller, buyer, shares);
    } else if (roll < 0.72 && p.listings.size) {
      const [seller] = pick([...p.listings]);
      p.listings.delete(seller);
      s.chain('ListingCancelled', p.addr, { pool: p.addr, seller: wallet(seller) });
    } else if (roll < 0.8) {
      s.chain('RoundCreated', p.addr, roundFields(p.rounds, usdc(100 + int(900)), s.now, 0, 2_592_000));
      p.open.push({ id: p.rounds++, claimed: new Set() });
      if (p.open.length > 3) {
        const old = p.open.shift()!;
        s.chain('RoundReclaimed', p.addr, { round_id: String(old.id), token, unclaimed: usdc(1 + int(50)) });
      }
    } else if (roll < 0.95 && p.open.length && holders.length) {
      const round = pick(p.open);
      const [holder] = pick(holders);
      if (round.claimed.has(holder)) return;
      round.claimed.add(holder);
      s.chain('RoundClaimed', p.addr, { shareholder: wallet(holder), round_id: String(round.id), token, amount: usdc(1 + int(100)) });
    } else if (roll < 0.97 && holders.length) {
      const [from, balance] = pick(holders);
      const amount = 1n + BigInt(int(Number(balance)));
      p.balances.set(from, balance - amount);
      tokenSide.push(() => s.chain('ParticipationTokenBurned', p.pt, { pool: p.addr, token: p.pt, from: wallet(from), amount: String(amount) }));
    } else if (roll < 0.98) {
      const to = anyWallet();
      const amount = BigInt(1000 * (1 + int(50)));
      p.balances.set(to, (p.balances.get(to) ?? 0n) + amount);
      tokenSide.push(() => s.chain('ParticipationTokenMinted', p.pt, { pool: p.addr, token: p.pt, admin: p.addr, to: wallet(to), amount: String(amount) }));
    } else if (roll < 0.99) {
      s.chain('PoolAdminChanged', p.addr, { previous_admin: admin, new_admin: admin });
    } else {
      s.chain('PoolTokensWithdrawnByAdmin', p.addr, { recipient: admin, token, amount: usdc(1 + int(10)) });
    }
  }

  function v1Step(p: V1Pool): void {
    const roll = random();
    const holders = [...p.shares].filter(([, bps]) => bps > 0);
    if (roll < 0.35 && !p.locked) {
      const [from, bps] = pick(holders);
      // Cap tables stay small (push distributions allocate to every holder): new holders only up to 8.
      const to = holders.length >= 8 ? pick(holders)[0] : anyWallet();
      if (to === from || bps < 2) return;
      const moved = 1 + int(bps - 1);
      p.shares.set(from, bps - moved);
      p.shares.set(to, (p.shares.get(to) ?? 0) + moved);
      s.chain('SharesTransferred', p.addr, { pool: p.addr, from: wallet(from), to: wallet(to), shares: String(moved), reason: 'direct' });
    } else if (roll < 0.5) {
      let total = 0n;
      for (const [w, bps] of holders) {
        const amount = BigInt(bps) * 10_000n;
        total += amount;
        p.allocated.set(w, (p.allocated.get(w) ?? 0n) + amount);
        s.chain('DistributionAllocated', p.addr, { shareholder: wallet(w), token, amount: String(amount) });
      }
      s.chain('DistributionCompleted', p.addr, { token, total_distributed: String(total) });
    } else if (roll < 0.95) {
      const owed = [...p.allocated].filter(([, a]) => a > 0n);
      if (!owed.length) return;
      const [w, amount] = pick(owed);
      p.allocated.set(w, 0n);
      s.chain('AllocationWithdrawn', p.addr, { shareholder: wallet(w), token, amount: String(amount) });
    } else if (roll < 0.99 && !p.locked) {
      // update_shares: the table replaced by a fresh split between two holders.
      const [a] = pick(holders);
      let b = anyWallet();
      if (b === a) b = (a + 1) % options.wallets;
      const first = 1000 * (1 + int(9));
      p.shares.clear();
      p.shares.set(a, first).set(b, 10_000 - first);
      s.chain('ShareTableUpdated', p.addr, {
        shareholder_count: 2,
        shares: capTable(p),
      });
    } else if (!p.locked) {
      p.locked = true;
      s.chain('PoolLocked', p.addr, {});
    }
  }

  function campaignStep(c: Campaign): void {
    const roll = random();
    if (c.state === 'open' && roll < 0.75) {
      const investor = anyWallet();
      const shares = 10 + int(500);
      c.sold += shares;
      c.contributions.set(investor, (c.contributions.get(investor) ?? 0) + shares);
      s.campaign('CampaignContributed', c.addr, {
        investor: wallet(investor),
        shares: String(shares),
        payment: usdc(shares),
        total_shares_sold: String(c.sold),
      });
    } else if (c.state === 'open' && roll < 0.85 && c.contributions.size) {
      const [investor, shares] = pick([...c.contributions]);
      c.contributions.delete(investor);
      c.sold -= shares;
      s.campaign('CampaignOptedOut', c.addr, { investor: wallet(investor), shares: String(shares), refund_amount: usdc(shares) });
    } else if (c.state === 'open' && roll < 0.9) {
      if (c.sold < c.softCap) {
        c.state = 'failed';
        s.campaign('CampaignFinalized', c.addr, { outcome: 'failed', status_code: 2, total_shares_sold: String(c.sold), total_raised: usdc(c.sold) });
      } else {
        c.state = 'proposed';
        const eta = new Date(s.now.getTime() + 3_600_000);
        s.campaign('CampaignActivationProposed', c.addr, { splitter: c.splitter, eta: eta.toISOString(), eta_unix: String(Math.floor(eta.getTime() / 1000)) });
      }
    } else if (c.state === 'failed' && c.contributions.size) {
      const [investor, shares] = pick([...c.contributions]);
      c.contributions.delete(investor);
      s.campaign('CampaignRefunded', c.addr, { investor: wallet(investor), shares: String(shares), refund_amount: usdc(shares) });
    } else if (c.state === 'proposed') {
      if (roll < 0.4) {
        c.state = 'open';
        s.campaign('CampaignActivationCancelled', c.addr, { splitter: c.splitter });
      } else {
        c.state = 'activated';
        s.campaign('CampaignActivated', c.addr, { splitter: c.splitter, total_raised: usdc(c.sold), payout_mode: 'escrow' });
      }
    }
  }
}

export interface WrittenHistory {
  readonly events: number;
  readonly appendCalls: number;
}

/** Writes a large history through the event store's batch append (appendMany), reporting progress per call. */
export async function writeLargeHistory(store: EventStore, options: LargeHistoryOptions, onProgress?: (events: number) => void): Promise<WrittenHistory> {
  let events = 0;
  let appendCalls = 0;
  for (const calls of largeHistory(options)) {
    for (const call of calls) {
      await store.appendMany(call);
      appendCalls++;
      for (const a of call) events += a.events.length;
    }
    onProgress?.(events);
  }
  return { events, appendCalls };
}
