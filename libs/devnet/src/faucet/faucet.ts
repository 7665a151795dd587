import { type Keypair, nativeToScVal, StrKey } from '@stellar/stellar-sdk';
import type { DevnetChain } from '../chain/devnet-chain';
import { submitWalletCall } from '../chain/wallet-call';

/** Friendbot's grant on testnet: 10,000 XLM (in stroops). */
export const FAUCET_XLM_STROOPS = 10_000n * 10_000_000n;
/** Test payment tokens granted with each funding (7 decimals, like a classic asset's SAC). */
export const FAUCET_USDC_UNITS = 10_000n * 10_000_000n;

export class FaucetError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
  ) {
    super(message);
  }
}

export interface FaucetGrant {
  readonly account: string;
  readonly xlmStroops: string;
  readonly paymentToken: string;
  readonly paymentTokenUnits: string;
  /** Hash of the mint transaction that credited the payment token. */
  readonly hash: string;
  readonly ledger: number;
}

/**
 * Friendbot for the devnet: creates the account with 10,000 XLM and mints test USDC to it through a transaction
 * signed by the devnet's USDC issuer (simulated, assembled and submitted like any client would), so the mint
 * shows up in the ledger history and events. Mints are serialised: the issuer can have one queued tx per ledger.
 */
export class Faucet {
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly chain: DevnetChain,
    private readonly issuer: Keypair,
    readonly paymentToken: string,
    private readonly inclusionTimeoutMs = 30_000,
  ) {}

  fund(address: string): Promise<FaucetGrant> {
    if (!StrKey.isValidEd25519PublicKey(address)) {
      return Promise.reject(new FaucetError(400, `invalid address ${JSON.stringify(address)}: expected a G… account id`));
    }
    if (this.chain.hostView.getAccount(address)) {
      return Promise.reject(new FaucetError(400, `account ${address} already funded: friendbot only funds new accounts`));
    }
    this.chain.createAccount(address, FAUCET_XLM_STROOPS);
    const run = this.queue.then(() => this.mint(address));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async mint(address: string): Promise<FaucetGrant> {
    const hash = this.submitMint(address);
    const record = await this.chain.waitForTransaction(hash, this.inclusionTimeoutMs);
    if (!record || record.status !== 'SUCCESS') throw new FaucetError(500, `payment token mint ${hash} was not applied`);
    return {
      account: address,
      xlmStroops: FAUCET_XLM_STROOPS.toString(),
      paymentToken: this.paymentToken,
      paymentTokenUnits: FAUCET_USDC_UNITS.toString(),
      hash,
      ledger: record.ledger,
    };
  }

  private submitMint(address: string): string {
    const r = submitWalletCall(this.chain, this.issuer, this.paymentToken, 'mint', [
      nativeToScVal(address, { type: 'address' }),
      nativeToScVal(FAUCET_USDC_UNITS, { type: 'i128' }),
    ]);
    if (!r.ok)
      throw new FaucetError(500, r.stage === 'simulation' ? `payment token mint simulation failed: ${r.error}` : `payment token mint rejected: ${r.error}`);
    return r.hash;
  }
}
