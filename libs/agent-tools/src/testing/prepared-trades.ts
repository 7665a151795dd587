import { Account, Address, Keypair, nativeToScVal, Networks, Operation, StrKey, TransactionBuilder, xdr } from '@stellar/stellar-sdk';
import type { PreparedTrade } from '@dobprotocol/agent-client';
import { parseDecimal } from '../policy/decimal';
import type { SignerSettings } from '../signer/signer-settings';

/** A pool and the USDC contract of the tests (any 32 bytes make a contract address). */
export const POOL = StrKey.encodeContract(Buffer.alloc(32, 7));
export const USDC = StrKey.encodeContract(Buffer.alloc(32, 9));

export const testSettings = (over: Partial<SignerSettings> = {}): SignerSettings => ({
  networkPassphrase: Networks.TESTNET,
  tokens: new Map([[USDC, { symbol: 'USDC', decimals: 7 }]]),
  maxFeeStroops: 10_000_000n,
  maxValiditySeconds: 900,
  ...over,
});

/** USDC base units (7 decimals) of a decimal amount. */
export const usdcUnits = (amount: string): bigint => parseDecimal(amount) / 10n ** 11n;

const address = (a: string) => new Address(a).toScVal();
const i128 = (n: bigint) => nativeToScVal(n, { type: 'i128' });

/** One node of a Soroban authorization tree: contract.fn(args) with its sub-invocations. */
export function invocation(contract: string, fn: string, args: xdr.ScVal[], subs: xdr.SorobanAuthorizedInvocation[] = []): xdr.SorobanAuthorizedInvocation {
  return new xdr.SorobanAuthorizedInvocation({
    function: xdr.SorobanAuthorizedFunction.sorobanAuthorizedFunctionTypeContractFn(
      new xdr.InvokeContractArgs({ contractAddress: Address.fromString(contract).toScAddress(), functionName: fn, args }),
    ),
    subInvocations: subs,
  });
}

/** A SEP-41 transfer(from, to, amount) node. */
export const transfer = (token: string, from: string, to: string, amount: bigint) => invocation(token, 'transfer', [address(from), address(to), i128(amount)]);

export interface BuyOptions {
  readonly wallet: Keypair;
  readonly seller?: string;
  readonly shares: bigint;
  /** What the details say the buy costs, e.g. "4.00". */
  readonly total: string;
  readonly now: Date;
  /** The authorization tree's sub-invocations; default: one USDC transfer of `total` from the wallet to the seller. */
  readonly subs?: xdr.SorobanAuthorizedInvocation[];
  readonly credentials?: xdr.SorobanCredentials;
  readonly source?: string;
  readonly fee?: string;
  readonly validForSeconds?: number;
  readonly passphrase?: string;
  readonly details?: Record<string, unknown>;
  readonly sequence?: string;
  readonly extraOperation?: boolean;
}

/**
 * A buy as the API prepares it (docs/trading.md): one buy_shares(buyer, seller, shares) call with the wallet as
 * source, time bounds [0, now + 600 s], and the auth entry a simulation records for the source account.
 */
export function preparedBuy(o: BuyOptions): PreparedTrade {
  const seller = o.seller ?? Keypair.random().publicKey();
  const wallet = o.wallet.publicKey();
  const args = [address(wallet), address(seller), i128(o.shares)];
  const auth = new xdr.SorobanAuthorizationEntry({
    credentials: o.credentials ?? xdr.SorobanCredentials.sorobanCredentialsSourceAccount(),
    rootInvocation: invocation(POOL, 'buy_shares', args, o.subs ?? [transfer(USDC, wallet, seller, usdcUnits(o.total))]),
  });
  const passphrase = o.passphrase ?? Networks.TESTNET;
  const maxTime = Math.floor(o.now.getTime() / 1000) + (o.validForSeconds ?? 600);
  let builder = new TransactionBuilder(new Account(o.source ?? wallet, o.sequence ?? String(100 + Math.floor(Math.random() * 1e6))), {
    fee: o.fee ?? '100',
    networkPassphrase: passphrase,
    timebounds: { minTime: 0, maxTime },
  }).addOperation(Operation.invokeContractFunction({ contract: POOL, function: 'buy_shares', args, auth: [auth] }));
  if (o.extraOperation) builder = builder.addOperation(Operation.bumpSequence({ bumpTo: '1' }));
  const tx = builder.build();
  return {
    kind: 'buy',
    networkId: 9,
    xdr: tx.toXDR(),
    networkPassphrase: passphrase,
    details: {
      listing_id: 'SALE_1',
      shares: Number(o.shares),
      price_per_share: '1.00',
      total_cost: o.total,
      payment_token: 'USDC',
      seller_address: seller,
      ...o.details,
    },
    expiresAt: new Date(maxTime * 1000).toISOString(),
    hash: Buffer.from(tx.hash()).toString('hex'),
  };
}
