import type { RecordedEvent } from '@dob/event-store';

/**
 * A deliberately small, pure fold of the STORE's chain-derived domain events into the state the contracts hold,
 * written for the reconstruction acceptance test (it is not the read models): if the store is complete and the
 * decoders are right, this equals what the contracts answer to list_shares / get_share, balance, list_all_sales /
 * get_listing, get_round, get_total_raised / get_status / get_contribution.
 * Contract semantics mirrored (docs/contracts.md §2-§4): a V1 holder whose points drop to ≤ 0 leaves the cap table;
 * a listing is per seller, re-listing overwrites, a sale reduces it and removes it at 0; a V2 reclaim marks the
 * round fully claimed; a campaign refund/opt-out zeroes the contribution (opt-out also lowers total_raised).
 */
export interface ListingState {
  sharesForSale: bigint;
  pricePerShare: bigint;
  paymentToken: string;
}

export interface RoundState {
  token: string;
  totalAmount: bigint;
  claimableFromUnix: bigint;
  expiresAtUnix: bigint;
  totalClaimed: bigint;
}

export interface CampaignState {
  status: number;
  totalRaised: bigint;
  contributions: Map<string, bigint>;
}

export interface FoldedChainState {
  /** pool → '1' | '2' from PoolInitialized. */
  readonly poolVersions: Map<string, string>;
  /** V2 pool → its participation token. */
  readonly participationTokens: Map<string, string>;
  /** V1 pool → holder → points. */
  readonly v1Shares: Map<string, Map<string, bigint>>;
  /** V1 pools whose initial cap table the store does not hold (PoolInitialized.initial_shares null/absent). */
  readonly v1UnknownTables: Set<string>;
  /** participation token → holder → balance. */
  readonly tokenBalances: Map<string, Map<string, bigint>>;
  /** pool → seller → active listing. */
  readonly listings: Map<string, Map<string, ListingState>>;
  /** pool → every seller that ever listed (to ask get_listing about). */
  readonly sellers: Map<string, Set<string>>;
  /** pool → round id → round. */
  readonly rounds: Map<string, Map<string, RoundState>>;
  readonly campaigns: Map<string, CampaignState>;
  /** Every ListingSold: the shares_remaining stored on it beside what this fold derives. */
  readonly soldRemaining: { eventId: string; stored: string | null; folded: string }[];
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- payloads were validated by the catalog on append; the fold reads fields by name
type Data = Record<string, any> & { chain: { contract_id: string; event_id: string } };

const inner = <K, V>(m: Map<string, Map<K, V>>, key: string): Map<K, V> => {
  let v = m.get(key);
  if (!v) m.set(key, (v = new Map()));
  return v;
};

function debit(table: Map<string, bigint>, holder: string, n: bigint): void {
  const left = (table.get(holder) ?? 0n) - n;
  if (left <= 0n) table.delete(holder);
  else table.set(holder, left);
}

export function foldChainState(events: readonly RecordedEvent[]): FoldedChainState {
  const s: FoldedChainState = {
    poolVersions: new Map(),
    participationTokens: new Map(),
    v1Shares: new Map(),
    v1UnknownTables: new Set(),
    tokenBalances: new Map(),
    listings: new Map(),
    sellers: new Map(),
    rounds: new Map(),
    campaigns: new Map(),
    soldRemaining: [],
  };
  // Chain order: the RPC event id orders chain events (zero-padded TOID); the stable sort keeps the order of the
  // several domain events one chain event yields.
  const chain = events
    .filter((e) => (e.data as { chain?: unknown })?.chain)
    .map((e, i) => ({ e, i, id: (e.data as Data).chain.event_id }))
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : a.i - b.i))
    .map((x) => x.e);
  for (const e of chain) apply(s, e.type, e.data as Data);
  return s;
}

function apply(s: FoldedChainState, type: string, d: Data): void {
  const contract = d.chain.contract_id;
  switch (type) {
    case 'PoolInitialized':
      s.poolVersions.set(contract, d.pool_version);
      if (d.participation_token) s.participationTokens.set(contract, d.participation_token);
      if (d.pool_version === '1') {
        if (!d.initial_shares) s.v1UnknownTables.add(contract);
        s.v1Shares.set(contract, new Map((d.initial_shares ?? []).map((x: { shareholder: string; share: string }) => [x.shareholder, BigInt(x.share)])));
      }
      return;
    case 'ShareTableUpdated':
      if (s.poolVersions.get(contract) !== '1') return;
      if (!d.shares) s.v1UnknownTables.add(contract);
      s.v1Shares.set(contract, new Map((d.shares ?? []).map((x: { shareholder: string; share: string }) => [x.shareholder, BigInt(x.share)])));
      return;
    case 'SharesTransferred': {
      // V2 balances live in the participation token; there this event is only the user-facing record.
      if (s.poolVersions.get(d.pool) !== '1') return;
      const table = inner(s.v1Shares, d.pool);
      const n = BigInt(d.shares);
      if (d.from) debit(table, d.from, n);
      table.set(d.to, (table.get(d.to) ?? 0n) + n);
      return;
    }
    case 'ParticipationTokenMinted':
      credit(inner(s.tokenBalances, contract), d.to, BigInt(d.amount));
      return;
    case 'ParticipationTokenTransferred': {
      const b = inner(s.tokenBalances, contract);
      credit(b, d.from, -BigInt(d.amount));
      credit(b, d.to, BigInt(d.amount));
      return;
    }
    case 'ParticipationTokenBurned':
    case 'ParticipationTokenClawedBack':
      credit(inner(s.tokenBalances, contract), d.from, -BigInt(d.amount));
      return;
    case 'ListingCreated':
      inner(s.listings, d.pool).set(d.seller, {
        sharesForSale: BigInt(d.shares_amount),
        pricePerShare: BigInt(d.price_per_share),
        paymentToken: d.payment_token,
      });
      if (!s.sellers.has(d.pool)) s.sellers.set(d.pool, new Set());
      s.sellers.get(d.pool)!.add(d.seller);
      return;
    case 'ListingSold': {
      const listings = inner(s.listings, d.pool);
      const l = listings.get(d.seller);
      if (!l) return; // a sale without a known listing: the comparison with the chain will show it
      const left = l.sharesForSale - BigInt(d.shares_sold);
      s.soldRemaining.push({ eventId: d.chain.event_id, stored: d.shares_remaining ?? null, folded: left.toString() });
      if (left <= 0n) listings.delete(d.seller);
      else listings.set(d.seller, { ...l, sharesForSale: left });
      return;
    }
    case 'ListingCancelled':
      inner(s.listings, d.pool).delete(d.seller);
      return;
    case 'RoundCreated':
      inner(s.rounds, contract).set(d.round_id, {
        token: d.token,
        totalAmount: BigInt(d.total_amount),
        claimableFromUnix: BigInt(d.claimable_from_unix),
        expiresAtUnix: BigInt(d.expires_at_unix),
        totalClaimed: 0n,
      });
      return;
    case 'RoundClaimed': {
      const r = inner(s.rounds, contract).get(d.round_id);
      if (r) r.totalClaimed += BigInt(d.amount);
      return;
    }
    // RoundReclaimed leaves the round's total_claimed as it was: reclaim.rs only returns the funds, lowers the
    // reservation and drops the round from ActiveRounds (the test_reclaim_partial_claimed_round snapshot).
    case 'CampaignCreated':
      s.campaigns.set(contract, { status: 0, totalRaised: 0n, contributions: new Map() });
      return;
    default:
      applyCampaign(s.campaigns.get(contract), type, d);
  }
}

function credit(b: Map<string, bigint>, holder: string, n: bigint): void {
  b.set(holder, (b.get(holder) ?? 0n) + n);
}

function applyCampaign(c: CampaignState | undefined, type: string, d: Data): void {
  if (!c) return;
  switch (type) {
    case 'CampaignContributed':
      c.contributions.set(d.investor, (c.contributions.get(d.investor) ?? 0n) + BigInt(d.shares));
      c.totalRaised += BigInt(d.payment);
      return;
    case 'CampaignOptedOut':
      c.contributions.set(d.investor, 0n);
      c.totalRaised -= BigInt(d.refund_amount);
      return;
    case 'CampaignRefunded':
      c.contributions.set(d.investor, 0n);
      return;
    case 'CampaignFinalized':
      c.status = d.status_code;
      return;
    case 'CampaignActivated':
      c.status = 3;
      return;
    case 'CampaignActivationExpired':
      c.status = 2;
      return;
  }
}
