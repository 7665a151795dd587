import { Account, Address, Contract, Keypair, nativeToScVal, rpc, scValToNative, TransactionBuilder, type xdr } from '@stellar/stellar-sdk';

/**
 * Contract READS over Stellar RPC, as any client makes them: a one-operation transaction sent to
 * simulateTransaction through stellar-sdk's rpc.Server (per stellar-rpc docs the source account and sequence of a
 * simulation are not checked), return value decoded with scValToNative. Used by acceptance tests to compare the
 * store's reconstruction with what the contracts hold.
 */
export class ContractReads {
  private readonly server: rpc.Server;
  private readonly source = new Account(Keypair.random().publicKey(), '0');

  constructor(
    rpcUrl: string,
    private readonly passphrase: string,
  ) {
    this.server = new rpc.Server(rpcUrl, { allowHttp: rpcUrl.startsWith('http://') });
  }

  async read<T = unknown>(contractId: string, fn: string, ...args: xdr.ScVal[]): Promise<T> {
    const tx = new TransactionBuilder(this.source, { fee: '100', networkPassphrase: this.passphrase })
      .addOperation(new Contract(contractId).call(fn, ...args))
      .setTimeout(0)
      .build();
    const sim = await this.server.simulateTransaction(tx);
    if (rpc.Api.isSimulationError(sim)) throw new Error(`${fn} on ${contractId}: ${sim.error}`);
    const retval = (sim as rpc.Api.SimulateTransactionSuccessResponse).result?.retval;
    return (retval ? scValToNative(retval) : undefined) as T;
  }
}

export const addressArg = (a: string): xdr.ScVal => new Address(a).toScVal();
export const u64Arg = (n: bigint | string): xdr.ScVal => nativeToScVal(BigInt(n), { type: 'u64' });
