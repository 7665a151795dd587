import { Address, FeeBumpTransaction, TransactionBuilder, type xdr } from '@stellar/stellar-sdk';
import type { PreparedTrade, TradeKind } from '@dobprotocol/agent-client';
import { formatDecimal, parseDecimal, type Units } from '../policy/decimal';
import type { TradeFacts } from '../policy/spending-policy';
import { auditEnvelope } from './envelope-audit';
import { SignerRefusal } from './signer-refusal';
import type { SignerSettings } from './signer-settings';

export interface Invocation {
  readonly source: string;
  readonly contract: string;
  readonly fn: string;
  readonly args: readonly xdr.ScVal[];
}

/** The one contract call a prepared envelope makes, for the summary (the signer decides on envelope-audit.ts). */
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

/** The fields of transaction_details that restate what the envelope moves: shown to people, so they must agree. */
const SHOWN: Partial<Record<TradeKind, { amount: string; shares: string }>> = {
  buy: { amount: 'total_cost', shares: 'shares' },
  contribute: { amount: 'amount', shares: 'estimated_shares' },
};

/**
 * What the policy judges, from the envelope alone (envelope-audit.ts): the invoked pool, the shares argument and
 * every token movement of the authorization tree, priced with the signer's own token list. The API's
 * transaction_details never decide; they are what a person is shown (the summary), so where they restate the
 * envelope — pool, payment token, amount, shares — and say otherwise, nothing is signed.
 */
export function tradeFacts(prepared: PreparedTrade, wallet: string, settings: SignerSettings, nowMs: number): TradeFacts & { maxTime: number } {
  const audited = auditEnvelope(prepared.xdr, prepared.networkPassphrase, prepared.kind, wallet, settings, nowMs);
  const d = prepared.details;
  const mismatch = (what: string) =>
    new SignerRefusal(`Refused by the local signer: the API's transaction_details do not match the envelope (${what}); not signing it.`);
  if ('pool_address' in d && d.pool_address !== audited.call.contract) throw mismatch(`pool ${String(d.pool_address)} vs contract ${audited.call.contract}`);
  const shown = SHOWN[prepared.kind];
  if (shown) {
    const moved = [...audited.spends].map(([token, amount]) => `${formatDecimal(amount)} ${token}`).join(' + ') || 'nothing';
    const said = `${String(d[shown.amount])} ${String(d.payment_token)}`;
    let amount: Units | undefined;
    try {
      amount = parseDecimal(String(d[shown.amount]));
    } catch {
      amount = undefined;
    }
    if (audited.spends.size !== 1 || audited.spends.get(String(d.payment_token)) !== amount) throw mismatch(`they say ${said}, the envelope moves ${moved}`);
    if (String(d[shown.shares]) !== String(audited.shares)) throw mismatch(`${shown.shares} ${String(d[shown.shares])} vs ${audited.shares} in the call`);
  }
  return { kind: prepared.kind, pool: audited.call.contract, spends: audited.spends, shares: audited.shares, maxTime: audited.maxTime };
}
