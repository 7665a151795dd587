import { Account, Contract, type Keypair, rpc, TransactionBuilder, type xdr } from '@stellar/stellar-sdk';
import type { DevnetChain } from '../chain/devnet-chain';
import type { TransactionRecord } from '../chain/chain-records';
import { signTransaction } from '../chain/ed25519';
import { simulateTransaction } from '../chain/simulate';

export interface SeedCall {
  readonly signer: Keypair;
  readonly contractId: string;
  readonly fn: string;
  readonly args: readonly xdr.ScVal[];
}

/**
 * Drives the chain the way a wallet does: build → simulate → assemble (footprint, resource fee, auth) → sign →
 * sendTransaction, then closes the ledger. Every call's source is the address that must authorise it, so the
 * recorded auth is source-account auth, as for a wallet signing its own call.
 */
export class SeedSubmitter {
  transactions = 0;

  constructor(private readonly chain: DevnetChain) {}

  /**
   * Submits independent calls (distinct signers, not reading each other's effects) into one ledger and closes it.
   * Throws if a call cannot be simulated or is not applied successfully: seeded history must be what was planned.
   */
  ledger(calls: readonly SeedCall[], notBefore?: bigint): TransactionRecord[] {
    // Time passes first (an empty ledger closed at `notBefore`), so simulation sees the new time, as a wallet would.
    if (notBefore !== undefined) this.chain.closeLedger({ closeTime: notBefore });
    const hashes = calls.map((call) => this.submit(call));
    const closed = this.chain.closeLedger();
    return hashes.map((hash, i) => {
      const record = this.chain.history.transaction(hash);
      if (!record || record.status !== 'SUCCESS' || record.ledger !== closed.sequence) {
        throw new Error(`seed call ${calls[i].fn} on ${calls[i].contractId} was not applied (${record?.status ?? 'dropped'})`);
      }
      return record;
    });
  }

  call(call: SeedCall, notBefore?: bigint): TransactionRecord {
    return this.ledger([call], notBefore)[0];
  }

  private submit(call: SeedCall): string {
    const source = call.signer.publicKey();
    const account = this.chain.hostView.getAccount(source);
    if (!account) throw new Error(`seed signer ${source} has no account`);
    const draft = new TransactionBuilder(new Account(source, account.sequence.toString()), { fee: '100', networkPassphrase: this.chain.networkPassphrase })
      .addOperation(new Contract(call.contractId).call(call.fn, ...call.args))
      .setTimeout(0)
      .build();
    const simulation = simulateTransaction(this.chain.hostView, draft.toXDR(), this.chain.nextLedgerInfo());
    if (!simulation.ok) throw new Error(`seed call ${call.fn} on ${call.contractId} failed simulation: ${simulation.error}`);
    const raw = { ...simulation, latestLedger: this.chain.latestLedger().sequence } as unknown as rpc.Api.RawSimulateTransactionResponse;
    const tx = rpc.assembleTransaction(draft, raw).build();
    signTransaction(tx, call.signer);
    const sent = this.chain.submit(tx.toXDR());
    if (sent.status !== 'PENDING') throw new Error(`seed call ${call.fn} rejected: ${sent.status}${'code' in sent ? ` ${sent.code}` : ''}`);
    this.transactions++;
    return sent.hash;
  }
}
