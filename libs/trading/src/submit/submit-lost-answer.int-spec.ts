import { TransactionBuilder, type Transaction } from '@stellar/stellar-sdk';
import { DEFAULT_SEED, devnetKeypair, startDevnet, type RunningDevnet } from '@dob/devnet';
import { AppError } from '@dob/domain';
import { createPgliteDatabase, type SqlDatabase } from '@dob/sql';
import { SqlPreparedTransactions } from '../adapters/sql-prepared-transactions';
import { StellarRpcGateway } from '../adapters/stellar-rpc-gateway';
import { StellarNetworks, type StellarNetwork } from '../networks/stellar-networks';
import type { PoolLookup } from '../ports/pool-lookup.port';
import type { ContractCall, SorobanGateway } from '../ports/soroban-gateway.port';
import { PrepareService } from '../prepare/prepare-service';
import { SubmitService } from './submit-service';

const NET = 9;
const unreachable = (what: string) => new AppError('NETWORK_UNAVAILABLE', `Stellar RPC for network ${NET} is unreachable (${what})`);

/**
 * The real RPC gateway, with faults on demand: a sendTransaction the RPC really accepted whose answer is lost (what
 * a timeout past STELLAR_RPC_TIMEOUT_MS looks like), a sendTransaction after which the process hangs (dies), and a
 * getTransaction that fails before it is made.
 */
class FaultyRpc implements SorobanGateway {
  loseNextSendAnswer = false;
  hangAfterNextSend = false;
  failNextLookup = false;
  /** sendTransactions the RPC answered (counted once the answer is in, lost or not). */
  sends = 0;
  constructor(private readonly real: SorobanGateway) {}
  accountSequence(net: StellarNetwork, account: string) {
    return this.real.accountSequence(net, account);
  }
  read(net: StellarNetwork, source: string, call: ContractCall) {
    return this.real.read(net, source, call);
  }
  prepare(net: StellarNetwork, tx: Transaction) {
    return this.real.prepare(net, tx);
  }
  eventIds(net: StellarNetwork, q: { ledger: number; contractId: string; txHash: string }) {
    return this.real.eventIds(net, q);
  }
  async send(net: StellarNetwork, tx: Transaction) {
    const r = await this.real.send(net, tx);
    this.sends++;
    if (this.hangAfterNextSend) {
      this.hangAfterNextSend = false;
      return new Promise<never>(() => undefined);
    }
    if (this.loseNextSendAnswer) {
      this.loseNextSendAnswer = false;
      throw unreachable('sendTransaction');
    }
    return r;
  }
  async getTransaction(net: StellarNetwork, hash: string) {
    if (this.failNextLookup) {
      this.failNextLookup = false;
      throw unreachable('getTransaction');
    }
    return this.real.getTransaction(net, hash);
  }
}

describe('submit when the RPC or the process fails after sendTransaction (devnet + PGlite)', () => {
  let devnet: RunningDevnet;
  let db: SqlDatabase;
  let prepared: SqlPreparedTransactions;
  let rpc: FaultyRpc;
  let networks: StellarNetworks;
  let prepare: PrepareService;
  let submit: SubmitService;
  let clockOffsetMs = 0;
  const now = () => new Date(Date.now() + clockOffsetMs);

  beforeAll(async () => {
    // Ledgers close only when a test closes one.
    devnet = await startDevnet({ port: 0, seed: true, ledgerIntervalMs: 3_600_000 });
    db = await createPgliteDatabase();
    prepared = await SqlPreparedTransactions.open(db);
    rpc = new FaultyRpc(new StellarRpcGateway());
    networks = new StellarNetworks([
      {
        id: NET,
        rpcUrl: devnet.rpcUrl,
        passphrase: devnet.networkPassphrase,
        explorerUrl: 'https://explorer',
        tokens: [{ symbol: 'USDC', address: devnet.paymentToken, decimals: 7 }],
      },
    ]);
    const pools: PoolLookup = {
      find: async (networkId, address) => ({ kind: 'splitter', networkId, address, name: null, poolVersion: '1' }),
    };
    prepare = new PrepareService({ networks, chain: rpc, prepared, pools, listings: { findBySaleAddress: async () => null } });
    submit = new SubmitService({ networks, chain: rpc, prepared, clock: now, pollIntervalMs: 50, inFlightWaitMs: 200 });
  });

  afterAll(async () => {
    await devnet?.stop();
    await db?.close();
  });

  /** A seeded V1 holder lists `shares` of pool `i`: the signed envelope and its hash. */
  async function preparedListing(i: number, shares: number) {
    const holder = devnetKeypair(`seed-${DEFAULT_SEED}/pool-${i}/holder-0`);
    const p = await prepare.prepareList(
      { keyId: 'ak_1', wallet: holder.publicKey() },
      { pool_address: devnet.pools[i]!.pool_address, shares_amount: shares, price_per_share: '2.5', payment_token: 'USDC', network_id: NET },
    );
    const tx = TransactionBuilder.fromXDR(p.xdr, devnet.networkPassphrase) as Transaction;
    tx.sign(holder);
    return {
      caller: { keyId: 'ak_1', wallet: holder.publicKey() },
      req: { signed_xdr: tx.toXDR(), network_id: NET },
      hash: Buffer.from(tx.hash()).toString('hex'),
    };
  }

  const onChain = async (hash: string) => (await rpc.getTransaction(networks.get(NET), hash)).status;

  it('a send whose answer was lost keeps its claim: the retry does not send it again (txBadSeq) but finds it on chain', async () => {
    const { caller, req, hash } = await preparedListing(0, 30);
    rpc.loseNextSendAnswer = true;
    await expect(submit.submit('list', caller, req)).rejects.toMatchObject({ code: 'NETWORK_UNAVAILABLE' });
    devnet.chain.closeLedger();
    expect(await onChain(hash)).toBe('SUCCESS');

    // Right away: the claim is still held (it may have reached the network), so the retry waits, then 409.
    await expect(submit.submit('list', caller, req)).rejects.toMatchObject({ code: 'CONFLICT', details: { state: 'submitting' } });
    expect((await prepared.find(hash))!.state).toBe('submitting');
    // Once the claim is stale, the retry looks the hash up and records what the chain did.
    clockOffsetMs += 61_000;
    const result = await submit.submit('list', caller, req);
    expect(result).toMatchObject({ replayed: false, data: { transaction_hash: hash, shares_listed: 30 } });
    expect((await prepared.find(hash))!.state).toBe('succeeded');
    await expect(submit.submit('list', caller, req)).resolves.toEqual({ data: result.data, replayed: true });
    expect(rpc.sends).toBe(1);
  });

  it('a taken-over claim whose lookup fails stays claimed, and a retry past maxTime still finds the transaction', async () => {
    const { caller, req, hash } = await preparedListing(2, 5);
    const sendsBefore = rpc.sends;
    rpc.hangAfterNextSend = true; // the process "dies" right after sendTransaction
    void submit.submit('list', caller, req);
    for (let i = 0; i < 200 && rpc.sends === sendsBefore; i++) await new Promise((r) => setTimeout(r, 10));
    devnet.chain.closeLedger();
    expect(await onChain(hash)).toBe('SUCCESS');

    clockOffsetMs += 61_000;
    rpc.failNextLookup = true;
    await expect(submit.submit('list', caller, req)).rejects.toMatchObject({ code: 'NETWORK_UNAVAILABLE' });
    expect((await prepared.find(hash))!.state).toBe('submitting');

    clockOffsetMs += 700_000; // past the transaction's maxTime (prepare + 600 s)
    const result = await submit.submit('list', caller, req);
    expect(result).toMatchObject({ replayed: false, data: { transaction_hash: hash, shares_listed: 5 } });
    expect(rpc.sends).toBe(sendsBefore + 1);
  });
});
