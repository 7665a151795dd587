import { Account, Contract, type Keypair, rpc, TransactionBuilder, type xdr } from '@stellar/stellar-sdk';
import type { DevnetChain } from './devnet-chain';
import { signTransaction } from './ed25519';
import { simulateTransaction } from './simulate';

export type WalletCallResult =
  { readonly ok: true; readonly hash: string } | { readonly ok: false; readonly stage: 'simulation' | 'submission'; readonly error: string };

/**
 * What a wallet does against an RPC, done in-process by the devnet's own actors (faucet, campaign keeper): build the
 * call, simulate it, assemble (footprint, resource fee, auth) with stellar-sdk's assembleTransaction, sign and submit.
 * The transaction is validated and applied by the chain like any other.
 */
export function submitWalletCall(chain: DevnetChain, signer: Keypair, contractId: string, fn: string, args: readonly xdr.ScVal[]): WalletCallResult {
  const account = chain.hostView.getAccount(signer.publicKey());
  if (!account) return { ok: false, stage: 'simulation', error: `account ${signer.publicKey()} is missing` };
  const draft = new TransactionBuilder(new Account(signer.publicKey(), account.sequence.toString()), { fee: '100', networkPassphrase: chain.networkPassphrase })
    .addOperation(new Contract(contractId).call(fn, ...args))
    // Valid for 5 minutes of the ledger clock, which devnet time control may have moved away from wall time.
    .setTimebounds(0, Number(chain.nextLedgerInfo().closeTime) + 300)
    .build();
  const simulation = simulateTransaction(chain.hostView, draft.toXDR(), chain.nextLedgerInfo());
  if (!simulation.ok) return { ok: false, stage: 'simulation', error: simulation.error };
  // The same assembly a client does with a real RPC's simulation response.
  const raw = { ...simulation, latestLedger: chain.latestLedger().sequence } as unknown as rpc.Api.RawSimulateTransactionResponse;
  const tx = rpc.assembleTransaction(draft, raw).build();
  signTransaction(tx, signer);
  const submitted = chain.submit(tx.toXDR());
  if (submitted.status !== 'PENDING') return { ok: false, stage: 'submission', error: `${submitted.status}${'code' in submitted ? ` ${submitted.code}` : ''}` };
  return { ok: true, hash: submitted.hash };
}
