import { Address, nativeToScVal, scValToNative } from '@stellar/stellar-sdk';
import type { CampaignConfig } from '../domain/crowdfunding-rules';
import type { ChainListing } from '../domain/marketplace-rules';
import type { StellarNetwork } from '../networks/stellar-networks';
import type { SorobanGateway } from '../ports/soroban-gateway.port';

export const addressArg = (a: string) => new Address(a).toScVal();
export const i128Arg = (n: bigint) => nativeToScVal(n, { type: 'i128' });

const big = (v: unknown): bigint => (typeof v === 'bigint' ? v : BigInt(v as number | string));

/**
 * Read-only contract calls (simulated, never sent) for the facts prepare validates against the chain itself:
 * listings, share balances, campaign config and totals, token balances. Each is one simulateTransaction; callers
 * run independent reads concurrently so a prepare costs two sequential round trips (reads ∥ getAccount, then
 * simulate-and-assemble).
 */
export class ChainReads {
  constructor(private readonly chain: SorobanGateway) {}

  /** Splitter get_listing(seller) → Option<SaleListingDataKey> (same shape in V1 and V2). */
  async listing(net: StellarNetwork, caller: string, pool: string, seller: string): Promise<ChainListing | null> {
    const v = scValToNative(await this.chain.read(net, caller, { contractId: pool, fn: 'get_listing', args: [addressArg(seller)] })) as
      { shares_for_sale: bigint; price_per_share: bigint; payment_token: string } | null | undefined;
    if (!v) return null;
    return { sharesForSale: big(v.shares_for_sale), pricePerShare: big(v.price_per_share), paymentToken: String(v.payment_token) };
  }

  /** Splitter get_share: Option<i128> in V1, i128 (participation-token balance) in V2; none = 0. */
  async shares(net: StellarNetwork, caller: string, pool: string, holder: string): Promise<bigint> {
    const v = scValToNative(await this.chain.read(net, caller, { contractId: pool, fn: 'get_share', args: [addressArg(holder)] }));
    return v === null || v === undefined ? 0n : big(v);
  }

  async campaignConfig(net: StellarNetwork, caller: string, campaign: string): Promise<CampaignConfig> {
    const c = scValToNative(await this.chain.read(net, caller, { contractId: campaign, fn: 'get_config', args: [] })) as Record<string, unknown>;
    return {
      paymentToken: String(c.payment_token),
      pricePerShare: big(c.price_per_share),
      softCapShares: big(c.soft_cap_shares),
      hardCapShares: big(c.hard_cap_shares),
      deadline: big(c.deadline),
      status: Number(c.status),
      totalSharesSold: big(c.total_shares_sold),
    };
  }

  async totalRaised(net: StellarNetwork, caller: string, campaign: string): Promise<bigint> {
    return big(scValToNative(await this.chain.read(net, caller, { contractId: campaign, fn: 'get_total_raised', args: [] })));
  }

  async contribution(net: StellarNetwork, caller: string, campaign: string, investor: string): Promise<bigint> {
    return big(scValToNative(await this.chain.read(net, caller, { contractId: campaign, fn: 'get_contribution', args: [addressArg(investor)] })) ?? 0n);
  }

  async balance(net: StellarNetwork, caller: string, token: string, holder: string): Promise<bigint> {
    return big(scValToNative(await this.chain.read(net, caller, { contractId: token, fn: 'balance', args: [addressArg(holder)] })));
  }
}

export interface TokenFacts {
  readonly address: string;
  readonly symbol: string;
  readonly decimals: number;
}

/**
 * Token symbol and decimals: configured tokens first, else read once from the token contract (SEP-41 `symbol`,
 * `decimals`) and cached for the life of the process — a token's decimals never change.
 */
export class TokenFactsCache {
  private readonly cache = new Map<string, Promise<TokenFacts>>();

  constructor(private readonly chain: SorobanGateway) {}

  get(net: StellarNetwork, caller: string, token: string): Promise<TokenFacts> {
    const configured = net.tokens?.find((t) => t.address === token);
    if (configured) return Promise.resolve(configured);
    const key = `${net.id}/${token}`;
    let facts = this.cache.get(key);
    if (!facts) {
      facts = Promise.all([
        this.chain.read(net, caller, { contractId: token, fn: 'symbol', args: [] }),
        this.chain.read(net, caller, { contractId: token, fn: 'decimals', args: [] }),
      ]).then(([s, d]) => ({ address: token, symbol: String(scValToNative(s)), decimals: Number(scValToNative(d)) }));
      facts.catch(() => this.cache.delete(key));
      this.cache.set(key, facts);
    }
    return facts;
  }

  /** A symbol ("USDC", case-insensitive) or a C… address → the token's contract address, or null. */
  resolve(net: StellarNetwork, symbolOrAddress: string): string | null {
    if (/^C[A-Z2-7]{55}$/.test(symbolOrAddress)) return symbolOrAddress;
    return net.tokens?.find((t) => t.symbol.toUpperCase() === symbolOrAddress.toUpperCase())?.address ?? null;
  }
}
