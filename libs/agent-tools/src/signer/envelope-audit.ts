import { Address, FeeBumpTransaction, scValToNative, TransactionBuilder, xdr, type Transaction } from '@stellar/stellar-sdk';
import type { TradeKind } from '@dobprotocol/agent-client';
import type { Units } from '../policy/decimal';
import { SignerRefusal } from './signer-refusal';
import type { SignerSettings } from './signer-settings';

/** The contract function each kind invokes, and the argument that must be the wallet (docs/trading.md, "Flows"). */
const CALL_OF: Record<TradeKind, { fn: string; walletArg: number; sharesArg?: number }> = {
  buy: { fn: 'buy_shares', walletArg: 0, sharesArg: 2 }, // buy_shares(buyer, seller, shares)
  list: { fn: 'list_shares_for_sale', walletArg: 0, sharesArg: 1 }, // (seller, shares, price, token)
  cancel: { fn: 'cancel_listing', walletArg: 0 }, // (seller)
  contribute: { fn: 'contribute', walletArg: 0, sharesArg: 1 }, // (investor, shares)
  reclaim: { fn: 'refund', walletArg: 0 }, // (investor)
};

/**
 * SEP-41 token functions that take value out of `from` (stellar-protocol ecosystem/sep-0041.md): where `from` and
 * the amount sit in the arguments. `approve` counts its whole allowance: it lets a spender take that much.
 */
const TOKEN_OUTFLOWS: Record<string, { from: number; amount: number; to?: number }> = {
  transfer: { from: 0, to: 1, amount: 2 },
  transfer_from: { from: 1, to: 2, amount: 3 },
  approve: { from: 0, amount: 2 },
  burn: { from: 0, amount: 1 },
  burn_from: { from: 1, amount: 2 },
};

export interface ContractCall {
  readonly contract: string;
  readonly fn: string;
  readonly args: readonly xdr.ScVal[];
}

/** What an envelope does, as decoded by the signer itself. */
export interface AuditedEnvelope {
  readonly call: ContractCall;
  /** Everything that may leave the wallet, per token symbol of the signer's configuration, in exact units. */
  readonly spends: ReadonlyMap<string, Units>;
  /** The call's shares argument, for the kinds that have one. */
  readonly shares?: bigint;
  /** The envelope's own expiry (its time bounds' maxTime), unix seconds. */
  readonly maxTime: number;
}

const refuse = (why: string): never => {
  throw new SignerRefusal(`Refused by the local signer: ${why}; not signing it.`);
};

const callOf = (args: xdr.InvokeContractArgs): ContractCall => ({
  contract: Address.fromScAddress(args.contractAddress).toString(),
  fn: Buffer.from(args.functionName.bytes).toString('utf8'),
  args: args.args,
});

const sameCall = (a: ContractCall, b: ContractCall) =>
  a.contract === b.contract && a.fn === b.fn && a.args.length === b.args.length && a.args.every((v, i) => v.toXdr('base64') === b.args[i].toXdr('base64'));

const addressArg = (v: xdr.ScVal | undefined): string | undefined => (v?.type === 'scvAddress' ? Address.fromScVal(v).toString() : undefined);

function intArg(v: xdr.ScVal | undefined, what: string): bigint {
  const kind = v?.type;
  if (kind !== 'scvI128' && kind !== 'scvU128' && kind !== 'scvI64' && kind !== 'scvU64' && kind !== 'scvU32' && kind !== 'scvI32') {
    return refuse(`${what} is not an integer`);
  }
  const n = BigInt(scValToNative(v!) as bigint | number);
  return n < 0n ? refuse(`${what} is negative (${n})`) : n;
}

/** Parses with the pinned passphrase and checks what the transaction itself says: source, fee, expiry, one call. */
function decodeTransaction(envelope: string, wallet: string, settings: SignerSettings, nowMs: number): { tx: Transaction; maxTime: number } {
  let parsed;
  try {
    parsed = TransactionBuilder.fromXDR(envelope, settings.networkPassphrase);
  } catch {
    return refuse('the envelope is not a transaction envelope');
  }
  if (parsed instanceof FeeBumpTransaction) return refuse('the envelope is a fee bump');
  const tx = parsed;
  if (tx.source !== wallet) refuse(`its source account is ${tx.source}, not this wallet ${wallet}`);
  if (BigInt(tx.fee) > settings.maxFeeStroops) refuse(`its fee of ${tx.fee} stroops is over the cap of ${settings.maxFeeStroops} (DOB_SIGNER_MAX_FEE_STROOPS)`);
  const maxTime = Number(tx.timeBounds?.maxTime ?? 0);
  if (maxTime === 0) refuse('it has no expiry (time bounds without maxTime stay valid forever)');
  if (maxTime * 1000 > nowMs + settings.maxValiditySeconds * 1000) {
    refuse(
      `it stays valid until ${new Date(maxTime * 1000).toISOString()}, longer than ${settings.maxValiditySeconds} s from now (DOB_SIGNER_MAX_VALIDITY_SECONDS)`,
    );
  }
  if (tx.operations.length !== 1) refuse(`it has ${tx.operations.length} operations; a trade is exactly one contract call`);
  const op = tx.operations[0];
  if (op.type !== 'invokeHostFunction' || op.func.type !== 'hostFunctionTypeInvokeContract') refuse('its operation is not a contract call');
  if (op.source !== undefined && op.source !== wallet) refuse(`its operation's source is ${op.source}, not this wallet`);
  return { tx, maxTime };
}

/**
 * Decodes a prepared envelope and accounts for everything signing it would allow, from the envelope alone
 * (issue 29): the pinned network, the wallet as source, a capped fee, a short expiry, exactly one call of the
 * kind's function with the wallet as its actor, and the whole Soroban authorization tree — every root and
 * sub-invocation (stellar-protocol CAP-46-11: SorobanAuthorizationEntry, SorobanAuthorizedInvocation). Every token
 * movement out of the wallet is summed per token of the signer's own configuration; anything it cannot account for
 * (another signer's credentials, an unknown function or token, a second root) is a refusal.
 */
export function auditEnvelope(
  envelope: string,
  claimedPassphrase: string,
  kind: TradeKind,
  wallet: string,
  settings: SignerSettings,
  nowMs: number,
): AuditedEnvelope {
  if (claimedPassphrase !== settings.networkPassphrase) {
    refuse(`the API names the network "${claimedPassphrase}", but this signer signs only for "${settings.networkPassphrase}" (DOB_NETWORK_PASSPHRASE)`);
  }
  const { tx, maxTime } = decodeTransaction(envelope, wallet, settings, nowMs);
  const op = tx.operations[0] as { func: xdr.HostFunction; auth?: xdr.SorobanAuthorizationEntry[] };
  if (op.func.type !== 'hostFunctionTypeInvokeContract') return refuse('its operation is not a contract call');
  const call = callOf(op.func.invokeContract);
  const expected = CALL_OF[kind];
  if (call.fn !== expected.fn) refuse(`it calls ${call.fn}, a ${kind} calls ${expected.fn}`);
  if (addressArg(call.args[expected.walletArg]) !== wallet)
    refuse(`its ${call.fn} acts for ${addressArg(call.args[expected.walletArg]) ?? 'no address'}, not this wallet`);
  const shares = expected.sharesArg === undefined ? undefined : intArg(call.args[expected.sharesArg], 'the shares argument');

  const spends = new Map<string, Units>();
  const account = (sub: xdr.SorobanAuthorizedInvocation) => {
    const fn = sub.function;
    if (fn.type !== 'sorobanAuthorizedFunctionTypeContractFn') return refuse('its authorization covers creating a contract');
    const inner = callOf(fn.contractFn);
    const outflow = TOKEN_OUTFLOWS[inner.fn];
    const from = outflow && addressArg(inner.args[outflow.from]);
    if (!outflow || from !== wallet) return refuse(`its authorization covers ${inner.contract}.${inner.fn}, which this signer cannot account for`);
    const amount = intArg(inner.args[outflow.amount], `the amount of ${inner.fn}`);
    const token = settings.tokens.get(inner.contract);
    if (token) {
      spends.set(token.symbol, (spends.get(token.symbol) ?? 0n) + amount * 10n ** BigInt(18 - token.decimals));
    } else if (!(kind === 'list' && inner.fn === 'transfer' && addressArg(inner.args[outflow.to!]) === call.contract && amount === shares)) {
      // The one unpriced movement a trade makes: a V2 listing escrows exactly the listed shares into the pool.
      refuse(`its authorization moves ${amount} of token ${inner.contract}, which is not one of this signer's tokens (DOB_SIGNER_TOKENS)`);
    }
    sub.subInvocations.forEach(account);
  };
  for (const entry of op.auth ?? []) {
    const credentials = entry.credentials;
    if (credentials.type !== 'sorobanCredentialsSourceAccount') {
      const who = credentials.type === 'sorobanCredentialsAddress' ? Address.fromScAddress(credentials.address.address).toString() : 'another signer';
      refuse(`it carries an authorization entry with separate credentials (${who}), which this signer does not sign`);
    }
    const root = entry.rootInvocation;
    if (root.function.type !== 'sorobanAuthorizedFunctionTypeContractFn' || !sameCall(callOf(root.function.contractFn), call)) {
      refuse('its authorization entry authorizes a call other than the one it makes');
    }
    root.subInvocations.forEach(account);
  }
  return { call, spends, shares, maxTime };
}
