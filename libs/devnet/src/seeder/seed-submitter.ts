import { Account, Contract, type Keypair, rpc, TransactionBuilder, xdr } from '@stellar/stellar-sdk';
import type { DevnetChain } from '../chain/devnet-chain';
import type { TransactionRecord } from '../chain/chain-records';
import { signTransaction } from '../chain/ed25519';
import { BASE_FEE } from '../chain/ledger-header-xdr';
import { simulateTransaction } from '../chain/simulate';
import { scValBase64 } from '../host/fast-xdr';
import { asAddress } from '../host/scval';
import { directEnvelope, sorobanDataBytes } from './direct-envelope';

export interface SeedCall {
  readonly signer: Keypair;
  readonly contractId: string;
  readonly fn: string;
  readonly args: readonly xdr.ScVal[];
  /**
   * Bulk calls whose footprint does not depend on state that changes between repetitions: the first simulation's
   * footprint is reused for the same shape. Anything else is simulated every time.
   */
  readonly reuseFootprint?: boolean;
}

/** What one simulation of a call shape taught: its footprint/resources, and that source-account auth suffices. */
interface Shape {
  readonly sorobanData: Buffer;
  readonly resourceFee: bigint;
  readonly sourceAuth: boolean;
}

/**
 * Drives the chain the way a wallet does: build → simulate → assemble (footprint, resource fee, auth) → sign →
 * sendTransaction, then closes the ledger. Every call's source is the address that must authorise it, so the
 * recorded auth is source-account auth, as for a wallet signing its own call.
 *
 * Bulk path: a wallet repeating the same call shape (same contract, function, signer and addresses; only amounts
 * differ) reuses the footprint and resource fee of the first simulation and writes its source-account auth entry
 * itself (root invocation = the call), as stellar-sdk users do with a cached SorobanTransactionData. Only shapes
 * whose simulated auth is exactly that are reused. The chain still validates and applies every transaction and
 * enforces the declared footprint, so a stale footprint would fail the transaction — and the seeder throws.
 */
export class SeedSubmitter {
  transactions = 0;
  simulations = 0;
  private readonly shapes = new Map<string, Shape>();

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
    const key = call.reuseFootprint ? shapeKey(call) : '';
    const shape = call.reuseFootprint ? this.shapes.get(key) : undefined;
    const envelopeXdr = shape
      ? directEnvelope(
          {
            signer: call.signer,
            sequence: account.sequence + 1n,
            fee: BigInt(BASE_FEE) + shape.resourceFee,
            contractId: call.contractId,
            fn: call.fn,
            args: call.args,
            sourceAuth: shape.sourceAuth,
            sorobanData: shape.sorobanData,
          },
          this.chain.networkPassphrase,
        ).envelopeXdr
      : this.simulated(call, account.sequence, key);
    const sent = this.chain.submit(envelopeXdr);
    if (sent.status !== 'PENDING') throw new Error(`seed call ${call.fn} rejected: ${sent.status}${'code' in sent ? ` ${sent.code}` : ''}`);
    this.transactions++;
    return sent.hash;
  }

  /** The wallet path: simulate, assemble, sign; remembers the shape when its auth is plain source-account auth. */
  private simulated(call: SeedCall, sequence: bigint, key: string): string {
    const source = call.signer.publicKey();
    const draft = new TransactionBuilder(new Account(source, sequence.toString()), { fee: String(BASE_FEE), networkPassphrase: this.chain.networkPassphrase })
      .addOperation(new Contract(call.contractId).call(call.fn, ...call.args))
      .setTimeout(0)
      .build();
    const simulation = simulateTransaction(this.chain.hostView, draft.toXDR(), this.chain.nextLedgerInfo());
    this.simulations++;
    if (!simulation.ok) throw new Error(`seed call ${call.fn} on ${call.contractId} failed simulation: ${simulation.error}`);
    const auth = simulation.results[0]?.auth ?? [];
    const sourceAuth = auth.length === 1 && isPlainSourceAuth(xdr.SorobanAuthorizationEntry.fromXdr(auth[0]!, 'base64'), call);
    if (key && (auth.length === 0 || sourceAuth)) {
      if (!this.shapes.has(key))
        this.shapes.set(key, { sorobanData: sorobanDataBytes(simulation.transactionData), resourceFee: BigInt(simulation.minResourceFee), sourceAuth });
    }
    const raw = { ...simulation, latestLedger: this.chain.latestLedger().sequence } as unknown as rpc.Api.RawSimulateTransactionResponse;
    const tx = rpc.assembleTransaction(draft, raw).build();
    signTransaction(tx, call.signer);
    return tx.toXDR();
  }
}

/** Same contract, function, signer and arguments, except i128 amounts, which may differ. */
function shapeKey(call: SeedCall): string {
  return `${call.contractId}|${call.fn}|${call.signer.publicKey()}|${call.args.map((a) => (a.type === 'scvI128' ? 'i128' : scValBase64(a))).join(',')}`;
}

function isPlainSourceAuth(entry: xdr.SorobanAuthorizationEntry, call: SeedCall): boolean {
  if (entry.credentials.type !== 'sorobanCredentialsSourceAccount') return false;
  const root = entry.rootInvocation;
  if (root.subInvocations.length > 0 || root.function.type !== 'sorobanAuthorizedFunctionTypeContractFn') return false;
  const fn = root.function.contractFn;
  return (
    fn.functionName.toString() === call.fn && asAddress(xdr.ScVal.scvAddress(fn.contractAddress)) === call.contractId && fn.args.length === call.args.length
  );
}
