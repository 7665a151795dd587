import { Account, Address, Contract, Keypair, nativeToScVal, rpc, scValToNative, TransactionBuilder, xdr } from '@stellar/stellar-sdk';

/**
 * Reads contract state and history straight from the chain, the way an auditor of the read API would: contract
 * getters through simulateTransaction and raw events through getEvents (stellar-rpc JSON-RPC via rpc.Server).
 * Never through the indexer or the read models, so the e2e compares the API with the chain itself.
 */
export class ChainReader {
  readonly server: rpc.Server;
  // Simulation needs a source account but never its sequence or signature (per stellar-rpc simulateTransaction docs).
  private readonly source = new Account(Keypair.random().publicKey(), '0');

  constructor(
    rpcUrl: string,
    private readonly passphrase: string,
  ) {
    this.server = new rpc.Server(rpcUrl, { allowHttp: true });
  }

  /** A contract getter's return value as native JS (i128 → bigint, maps → objects, Option None → null/undefined). */
  async read<T = unknown>(contractId: string, fn: string, ...args: xdr.ScVal[]): Promise<T> {
    const tx = new TransactionBuilder(this.source, { fee: '100', networkPassphrase: this.passphrase })
      .addOperation(new Contract(contractId).call(fn, ...args))
      .setTimeout(30)
      .build();
    const sim = await this.server.simulateTransaction(tx);
    if (!rpc.Api.isSimulationSuccess(sim)) throw new Error(`${contractId}.${fn}: ${(sim as { error?: string }).error ?? 'simulation failed'}`);
    return scValToNative(sim.result!.retval) as T;
  }

  /** Every contract event of these contracts from the oldest retained ledger to the latest, in chain order. */
  async events(contractIds: readonly string[]): Promise<ChainEvent[]> {
    const out: ChainEvent[] = [];
    const health = await this.server.getHealth();
    const latest = (await this.server.getLatestLedger()).sequence;
    // stellar-rpc: ≤ 5 contract ids per filter, ≤ 5 filters; endLedger is exclusive; the devnet scans ≤ 10,000 ledgers.
    const filters = chunk(contractIds, 5).map((ids) => ({ type: 'contract' as const, contractIds: ids }));
    for (const group of chunk(filters, 5)) {
      for (let from = health.oldestLedger; from <= latest; from += 10_000) {
        const end = Math.min(from + 10_000, latest + 1);
        let page = await this.server.getEvents({ startLedger: from, endLedger: end, filters: group, limit: 10_000 });
        for (;;) {
          const inRange = page.events.filter((e) => e.ledger < end);
          out.push(
            ...inRange.map((e) => ({
              id: e.id,
              ledger: e.ledger,
              closedAt: Date.parse(e.ledgerClosedAt),
              txHash: e.txHash,
              contractId: e.contractId ? e.contractId.contractId() : '',
              topic: e.topic.map((t) => scValToNative(t) as unknown),
              value: scValToNative(e.value) as unknown,
            })),
          );
          if (page.events.length < 10_000 || inRange.length < page.events.length) break;
          page = await this.server.getEvents({ cursor: page.cursor, filters: group, limit: 10_000 });
        }
      }
    }
    return out.sort((a, b) => (a.id < b.id ? -1 : 1));
  }

  /**
   * A splitter's cap table as the contract holds it: V1 `list_shares` (holders with a share above zero); V2 the
   * participation token's `balance` of each of `holders` (a token's holders cannot be enumerated on chain, so the
   * caller names them — Σ of the balances against the pool's `total_shares` shows none is missing).
   */
  async capTable(pool: string, holders: readonly string[]): Promise<Map<string, bigint>> {
    const config = await this.read<Record<string, unknown>>(pool, 'get_config');
    const out = new Map<string, bigint>();
    if (typeof config.participation_token === 'string') {
      for (const h of holders) out.set(h, await this.read<bigint>(config.participation_token, 'balance', addressArg(h)));
    } else {
      for (const s of await this.read<{ shareholder: string; share: bigint }[]>(pool, 'list_shares')) if (s.share > 0n) out.set(s.shareholder, s.share);
    }
    return out;
  }

  /** Signs and submits one contract call, waiting until it is applied (SUCCESS) or failing the caller. */
  async invoke(signer: Keypair, contractId: string, fn: string, args: xdr.ScVal[]): Promise<{ hash: string; appliedAt: number }> {
    const tx = new TransactionBuilder(await this.server.getAccount(signer.publicKey()), { fee: '100', networkPassphrase: this.passphrase })
      .addOperation(new Contract(contractId).call(fn, ...args))
      .setTimeout(60)
      .build();
    const prepared = await this.server.prepareTransaction(tx);
    prepared.sign(signer);
    const sent = await this.server.sendTransaction(prepared);
    if (sent.status !== 'PENDING') throw new Error(`${fn} not accepted: ${sent.status}`);
    const final = await this.server.pollTransaction(sent.hash, { attempts: 300, sleepStrategy: () => 50 });
    if (final.status !== 'SUCCESS') throw new Error(`${fn} ${final.status}`);
    return { hash: sent.hash, appliedAt: Date.now() };
  }
}

export interface ChainEvent {
  readonly id: string;
  readonly ledger: number;
  readonly closedAt: number;
  readonly txHash: string;
  readonly contractId: string;
  readonly topic: unknown[];
  readonly value: unknown;
}

export const addressArg = (a: string) => new Address(a).toScVal();
export const i128Arg = (n: bigint) => nativeToScVal(n, { type: 'i128' });

/** Base units → the API's decimal string: at least two decimals, trailing zeros trimmed (docs/read-models.md). */
export function decimalString(base: bigint, decimals = 7): string {
  const negative = base < 0n;
  const abs = negative ? -base : base;
  const unit = 10n ** BigInt(decimals);
  let fraction = (abs % unit).toString().padStart(decimals, '0').replace(/0+$/, '');
  if (fraction.length < 2) fraction = fraction.padEnd(2, '0');
  return `${negative ? '-' : ''}${abs / unit}.${fraction}`;
}

function chunk<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
