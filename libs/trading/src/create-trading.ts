import { createSqlReadModelReader, type ReadModelReader } from '@dob/read-models';
import type { SqlDatabase } from '@dob/sql';
import { ReadModelListingLookup, ReadModelPoolLookup } from './adapters/read-model-lookups';
import { SqlIdempotencyRecords } from './adapters/sql-idempotency-records';
import { SqlPreparedTransactions } from './adapters/sql-prepared-transactions';
import { IdempotentRequests } from './idempotency/idempotent-requests';
import { StellarRpcGateway } from './adapters/stellar-rpc-gateway';
import { StellarNetworks, type StellarNetwork } from './networks/stellar-networks';
import { TradingService } from './trading-service';

export interface CreateTradingOptions {
  /** The prepared-transactions table lives here (and the read models too, unless `readModels` says otherwise). */
  readonly db: SqlDatabase;
  /** Where listings and pools are looked up; default the SQL read models in `db`. */
  readonly readModels?: Pick<ReadModelReader, 'listing' | 'campaignInfo' | 'poolInfo'>;
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
    listings: new ReadModelListingLookup(options.readModels ?? createSqlReadModelReader(options.db)),
    pools: new ReadModelPoolLookup(options.readModels ?? createSqlReadModelReader(options.db)),
    prepared: await SqlPreparedTransactions.open(options.db),
    clock: options.clock,
    pollIntervalMs: options.pollIntervalMs,
    idempotency: new IdempotentRequests({ records: await SqlIdempotencyRecords.open(options.db), clock: options.clock }),
  });
}
