import { Address, FeeBumpTransaction, scValToNative, TransactionBuilder, type xdr } from '@stellar/stellar-sdk';
import type { PreparedTrade, TradeKind } from '@dobprotocol/agent-client';
import { parseDecimal } from '../policy/decimal';
import type { TradeFacts } from '../policy/spending-policy';

/** The contract function each kind invokes (docs/trading.md, "Flows"). */
const FUNCTION_OF: Record<TradeKind, string> = {
  buy: 'buy_shares',
  list: 'list_shares_for_sale',
  cancel: 'cancel_listing',
  contribute: 'contribute',
  reclaim: 'refund',
};

export interface Invocation {
  readonly source: string;
  readonly contract: string;
  readonly fn: string;
  readonly args: readonly xdr.ScVal[];
}

/** The one contract call a prepared envelope makes (the API prepares exactly one invokeHostFunction). */
export function invocationOf(envelope: string, passphrase: string): Invocation {
  const tx = TransactionBuilder.fromXDR(envelope, passphrase);
  if (tx instanceof FeeBumpTransaction || tx.operations.length !== 1 || tx.operations[0].type !== 'invokeHostFunction') {
    throw new Error('not a single contract invocation');
  }
  const fn = tx.operations[0].func;
  if (fn.type !== 'hostFunctionTypeInvokeContract') throw new Error('not a contract call');
  const call = fn.invokeContract;
  return {
    source: tx.source,
    contract: Address.fromScAddress(call.contractAddress).toString(),
    fn: Buffer.from(call.functionName.bytes).toString('utf8'),
    args: call.args,
  };
}

const text = (details: Record<string, unknown>, field: string): string => {
  const v = details[field];
  if (typeof v !== 'string' && typeof v !== 'number') throw new Error(`transaction_details.${field} is missing`);
  return String(v);
};

/**
 * What the policy judges, read from the envelope that will be signed wherever it says it (pool = the invoked
 * contract, shares = the call's argument) and from the API's transaction_details for prices, which the envelope
 * does not carry; the two must agree or the transaction is not signed.
 */
export function tradeFacts(prepared: PreparedTrade): TradeFacts {
  const call = invocationOf(prepared.xdr, prepared.networkPassphrase);
  const mismatch = (what: string) => new Error(`prepared transaction does not match its details (${what}); not signing it`);
  if (call.fn !== FUNCTION_OF[prepared.kind]) throw mismatch(`calls ${call.fn}, a ${prepared.kind} calls ${FUNCTION_OF[prepared.kind]}`);
  const d = prepared.details;
  if ('pool_address' in d && d.pool_address !== call.contract) throw mismatch(`pool ${String(d.pool_address)} vs contract ${call.contract}`);
  const sharesArg = (i: number, field: string) => {
    const shares = BigInt(scValToNative(call.args[i]) as bigint);
    if (shares !== BigInt(text(d, field))) throw mismatch(`${field} ${text(d, field)} vs ${shares} in the call`);
    return shares;
  };
  switch (prepared.kind) {
    case 'buy':
      return {
        kind: 'buy',
        pool: call.contract,
        spend: { token: text(d, 'payment_token'), amount: parseDecimal(text(d, 'total_cost')), shares: sharesArg(2, 'shares') },
      };
    case 'contribute':
      return {
        kind: 'contribute',
        pool: call.contract,
        spend: { token: text(d, 'payment_token'), amount: parseDecimal(text(d, 'amount')), shares: sharesArg(1, 'estimated_shares') },
      };
    default:
      return { kind: prepared.kind, pool: call.contract };
  }
}
