import { AppError, formatAmount, percent } from '@dob/domain';
import { splitterFamily } from '../domain/contract-errors';
import { parseTokenAmount, percentString } from '../domain/amounts';
import { checkReclaim, planContribution } from '../domain/crowdfunding-rules';
import { checkHeldShares, checkListTerms, requireActive, requireListing, requireSeller, sharesToBuy } from '../domain/marketplace-rules';
import type { TradeKind } from '../domain/trade-kind';
import type { StellarNetwork, StellarNetworks } from '../networks/stellar-networks';
import type { ListingLookup } from '../ports/listing-lookup.port';
import type { PoolInfo, PoolLookup } from '../ports/pool-lookup.port';
import type { PreparedTransactions } from '../ports/prepared-transactions.port';
import type { SorobanGateway } from '../ports/soroban-gateway.port';
import { addressArg, ChainReads, i128Arg, TokenFactsCache } from './chain-reads';
import { buildInvocation, requireAccount, type BuiltTransaction } from './transaction-factory';

export interface Caller {
  readonly keyId: string;
  readonly wallet: string;
}

export interface PrepareResponse {
  readonly xdr: string;
  readonly transaction_details: Record<string, unknown>;
  readonly expires_at: string;
  readonly network_passphrase: string;
}

export interface PrepareDeps {
  readonly networks: StellarNetworks;
  readonly chain: SorobanGateway;
  readonly listings: ListingLookup;
  readonly pools: PoolLookup;
  readonly prepared: PreparedTransactions;
  readonly clock?: () => Date;
}

const iso = (d: Date) => d.toISOString().replace('.000Z', 'Z');

/**
 * The five prepare flows. Each: validate against the read models and the chain, build one invocation of the
 * right contract with the key's wallet as source, remember its hash with the request context, return the XDR.
 */
export class PrepareService {
  private readonly reads: ChainReads;
  readonly tokens: TokenFactsCache;
  private readonly now: () => Date;

  constructor(private readonly deps: PrepareDeps) {
    this.reads = new ChainReads(deps.chain);
    this.tokens = new TokenFactsCache(deps.chain);
    this.now = deps.clock ?? (() => new Date());
  }

  async prepareBuy(caller: Caller, req: { listing_id: string; amount?: number; network_id: number }): Promise<PrepareResponse> {
    const net = this.deps.networks.get(req.network_id);
    const listing = requireListing(await this.deps.listings.findBySaleAddress(req.listing_id), req.listing_id, net.id);
    const [sequence, onChain, token] = await Promise.all([
      this.deps.chain.accountSequence(net, caller.wallet),
      this.reads.listing(net, caller.wallet, listing.pool, listing.seller),
      this.tokens.get(net, caller.wallet, listing.paymentToken),
    ]);
    const active = requireActive(listing, onChain);
    const shares = sharesToBuy(listing, active, caller.wallet, req.amount);
    const total = shares * active.pricePerShare;
    const built = await buildInvocation(
      this.deps.chain,
      net,
      { wallet: caller.wallet, sequence: requireAccount(sequence, caller.wallet, net.id) },
      { contractId: listing.pool, fn: 'buy_shares', args: [addressArg(caller.wallet), addressArg(listing.seller), i128Arg(shares)] },
      splitterFamily(listing.poolVersion),
      this.now(),
    );
    const details = {
      listing_id: listing.saleAddress,
      shares: Number(shares),
      price_per_share: formatAmount(active.pricePerShare, token.decimals),
      total_cost: formatAmount(total, token.decimals),
      payment_token: token.symbol,
      seller_address: listing.seller,
    };
    return this.remember('buy', net, caller, built, details, {
      listing_id: listing.saleAddress,
      pool: listing.pool,
      seller: listing.seller,
      pool_version: listing.poolVersion,
      shares: shares.toString(),
      total_cost: total.toString(),
      payment_token: listing.paymentToken,
      token_symbol: token.symbol,
      decimals: token.decimals,
    });
  }

  async prepareList(
    caller: Caller,
    req: { pool_address: string; shares_amount: number; price_per_share: string; payment_token: string; network_id: number },
  ): Promise<PrepareResponse> {
    const net = this.deps.networks.get(req.network_id);
    const pool = await this.requirePool(net, req.pool_address);
    if (pool.kind !== 'splitter')
      throw AppError.validation(`${req.pool_address} is a crowdfunding campaign, not a pool with a share marketplace`, {
        fields: { pool_address: 'not a splitter pool' },
      });
    const tokenAddress = this.tokens.resolve(net, req.payment_token);
    if (!tokenAddress)
      throw AppError.validation(`Unknown payment token ${req.payment_token} on network ${net.id}`, { fields: { payment_token: 'unknown token symbol' } });
    const [sequence, held, token, existing] = await Promise.all([
      this.deps.chain.accountSequence(net, caller.wallet),
      this.reads.shares(net, caller.wallet, pool.address, caller.wallet),
      this.tokens.get(net, caller.wallet, tokenAddress),
      // V2 escrows and refuses a second listing (ListingAlreadyExists); V1 overwrites in place.
      pool.poolVersion === '2' ? this.reads.listing(net, caller.wallet, pool.address, caller.wallet) : Promise.resolve(null),
    ]);
    const price = parseTokenAmount(req.price_per_share, token.decimals, 'price_per_share');
    checkListTerms(req.shares_amount, price);
    const shares = BigInt(req.shares_amount);
    if (existing) throw AppError.conflict('This wallet already has an active listing in this pool; cancel it first', { pool_address: pool.address });
    checkHeldShares(held, shares);
    const built = await buildInvocation(
      this.deps.chain,
      net,
      { wallet: caller.wallet, sequence: requireAccount(sequence, caller.wallet, net.id) },
      { contractId: pool.address, fn: 'list_shares_for_sale', args: [addressArg(caller.wallet), i128Arg(shares), i128Arg(price), addressArg(tokenAddress)] },
      splitterFamily(pool.poolVersion),
      this.now(),
    );
    const details = {
      pool_address: pool.address,
      shares_amount: Number(shares),
      price_per_share: formatAmount(price, token.decimals),
      total_listing_value: formatAmount(shares * price, token.decimals),
      payment_token: token.symbol,
    };
    return this.remember('list', net, caller, built, details, {
      pool: pool.address,
      pool_version: pool.poolVersion,
      shares: shares.toString(),
      price_per_share: price.toString(),
      payment_token: tokenAddress,
      token_symbol: token.symbol,
      decimals: token.decimals,
    });
  }

  async prepareCancel(caller: Caller, req: { listing_id: string; network_id: number }): Promise<PrepareResponse> {
    const net = this.deps.networks.get(req.network_id);
    const listing = requireListing(await this.deps.listings.findBySaleAddress(req.listing_id), req.listing_id, net.id);
    requireSeller(listing, caller.wallet);
    const [sequence, onChain] = await Promise.all([
      this.deps.chain.accountSequence(net, caller.wallet),
      this.reads.listing(net, caller.wallet, listing.pool, listing.seller),
    ]);
    const active = requireActive(listing, onChain);
    const built = await buildInvocation(
      this.deps.chain,
      net,
      { wallet: caller.wallet, sequence: requireAccount(sequence, caller.wallet, net.id) },
      { contractId: listing.pool, fn: 'cancel_listing', args: [addressArg(caller.wallet)] },
      splitterFamily(listing.poolVersion),
      this.now(),
    );
    const details = { listing_id: listing.saleAddress, shares_returned: Number(active.sharesForSale) };
    return this.remember('cancel', net, caller, built, details, {
      listing_id: listing.saleAddress,
      pool: listing.pool,
      pool_version: listing.poolVersion,
      shares_returned: active.sharesForSale.toString(),
    });
  }

  async prepareContribute(caller: Caller, req: { pool_address: string; amount: string; network_id: number }): Promise<PrepareResponse> {
    const net = this.deps.networks.get(req.network_id);
    const pool = await this.requirePool(net, req.pool_address);
    if (pool.kind !== 'crowdfunding')
      throw AppError.validation('Pool is not a crowdfunding campaign', { fields: { pool_address: 'not a crowdfunding campaign' } });
    const [sequence, config, raised, token] = await Promise.all([
      this.deps.chain.accountSequence(net, caller.wallet),
      this.reads.campaignConfig(net, caller.wallet, pool.address),
      this.reads.totalRaised(net, caller.wallet, pool.address),
      this.tokens.get(net, caller.wallet, pool.paymentToken),
    ]);
    const amount = parseTokenAmount(req.amount, token.decimals, 'amount');
    // The balance read waits for the amount to be valid: one more simulate only for requests that can succeed.
    const balance = amount > 0n ? await this.reads.balance(net, caller.wallet, config.paymentToken, caller.wallet) : 0n;
    const plan = planContribution(config, {
      amount,
      raised,
      balance,
      nowSeconds: BigInt(Math.floor(this.now().getTime() / 1000)),
      decimals: token.decimals,
      symbol: token.symbol,
    });
    const built = await buildInvocation(
      this.deps.chain,
      net,
      { wallet: caller.wallet, sequence: requireAccount(sequence, caller.wallet, net.id) },
      { contractId: pool.address, fn: 'contribute', args: [addressArg(caller.wallet), i128Arg(plan.shares)] },
      'crowdfunding',
      this.now(),
    );
    const details = {
      pool_address: pool.address,
      pool_name: pool.name,
      amount: formatAmount(plan.payment, token.decimals),
      payment_token: token.symbol,
      estimated_shares: Number(plan.shares),
      current_raised: formatAmount(raised, token.decimals),
      target_amount: formatAmount(plan.target, token.decimals),
      progress_after_contribution: percentString(raised + plan.payment, plan.target),
      deadline: iso(new Date(Number(config.deadline) * 1000)),
    };
    return this.remember('contribute', net, caller, built, details, {
      pool: pool.address,
      shares: plan.shares.toString(),
      payment: plan.payment.toString(),
      price_per_share: config.pricePerShare.toString(),
      target: plan.target.toString(),
      payment_token: config.paymentToken,
      token_symbol: token.symbol,
      decimals: token.decimals,
    });
  }

  async prepareReclaim(caller: Caller, req: { pool_address: string; network_id: number }): Promise<PrepareResponse> {
    const net = this.deps.networks.get(req.network_id);
    const pool = await this.requirePool(net, req.pool_address);
    if (pool.kind !== 'crowdfunding')
      throw AppError.validation('Pool is not a crowdfunding campaign', { fields: { pool_address: 'not a crowdfunding campaign' } });
    const [sequence, config, contribution, token] = await Promise.all([
      this.deps.chain.accountSequence(net, caller.wallet),
      this.reads.campaignConfig(net, caller.wallet, pool.address),
      this.reads.contribution(net, caller.wallet, pool.address, caller.wallet),
      this.tokens.get(net, caller.wallet, pool.paymentToken),
    ]);
    checkReclaim(config, contribution, BigInt(Math.floor(this.now().getTime() / 1000)));
    const refund = contribution * config.pricePerShare;
    const built = await buildInvocation(
      this.deps.chain,
      net,
      { wallet: caller.wallet, sequence: requireAccount(sequence, caller.wallet, net.id) },
      { contractId: pool.address, fn: 'refund', args: [addressArg(caller.wallet)] },
      'crowdfunding',
      this.now(),
    );
    const details = {
      pool_address: pool.address,
      pool_name: pool.name,
      amount: formatAmount(refund, token.decimals),
      payment_token: token.symbol,
      shares: Number(contribution),
    };
    return this.remember('reclaim', net, caller, built, details, {
      pool: pool.address,
      shares: contribution.toString(),
      refund: refund.toString(),
      payment_token: config.paymentToken,
      token_symbol: token.symbol,
      decimals: token.decimals,
    });
  }

  private async requirePool(net: StellarNetwork, address: string): Promise<PoolInfo> {
    const pool = await this.deps.pools.find(net.id, address);
    if (!pool) throw AppError.notFound(`Pool ${address} not found on network ${net.id}`);
    return pool;
  }

  private async remember(
    kind: TradeKind,
    net: StellarNetwork,
    caller: Caller,
    built: BuiltTransaction,
    details: Record<string, unknown>,
    context: Record<string, unknown>,
  ): Promise<PrepareResponse> {
    const xdr = built.tx.toXDR();
    await this.deps.prepared.save({
      hash: built.hash,
      kind,
      networkId: net.id,
      wallet: caller.wallet,
      keyId: caller.keyId,
      xdr,
      expiresAt: built.expiresAt,
      context: { ...context, details },
      createdAt: this.now(),
    });
    return { xdr, transaction_details: details, expires_at: iso(built.expiresAt), network_passphrase: net.passphrase };
  }
}

/** Progress percent as the read API shows it (number, two decimals). */
export const progressPercent = (raised: bigint, target: bigint): number => Math.round(percent(raised, target) * 100) / 100;
