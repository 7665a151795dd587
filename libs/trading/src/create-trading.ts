import type { SqlDatabase } from '@dob/sql';
import { ReadModelListingLookup, ReadModelPoolLookup } from './adapters/read-model-lookups';
import { SqlPreparedTransactions } from './adapters/sql-prepared-transactions';
import { StellarRpcGateway } from './adapters/stellar-rpc-gateway';
import { StellarNetworks, type StellarNetwork } from './networks/stellar-networks';
import { TradingService } from './trading-service';

export interface CreateTradingOptions {
  /** The database holding the read models; the prepared-transactions table is created in it too. */
  readonly db: SqlDatabase;
  /** e.g. [{ id: 9, rpcUrl: devnet.rpcUrl, passphrase: devnet.networkPassphrase, explorerUrl, tokens: [{ symbol: 'USDC', address: devnet.paymentToken, decimals: 7 }] }] */
  readonly networks: readonly StellarNetwork[];
  readonly clock?: () => Date;
  readonly pollIntervalMs?: number;
}

/** Composition of the trading use cases over the real adapters: stellar-rpc, SQL memory, read-model lookups. */
export async function createTradingService(options: CreateTradingOptions): Promise<TradingService> {
  return new TradingService({
    networks: new StellarNetworks(options.networks),
    chain: new StellarRpcGateway(),
    listings: new ReadModelListingLookup(options.db),
    pools: new ReadModelPoolLookup(options.db),
    prepared: await SqlPreparedTransactions.open(options.db),
    clock: options.clock,
    pollIntervalMs: options.pollIntervalMs,
  });
}
