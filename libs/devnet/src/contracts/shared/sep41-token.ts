import type { xdr } from '@stellar/stellar-sdk';
import { addr, asAddress, asI128, asStruct, asU32, dataKey, field, i128, struct, u32, voidVal } from '../../host/scval';
import { expectArgs, type ContractEnv, type ContractFunction } from '../contract';

/**
 * What the SEP-41 token interface shares between the participation token and the Stellar Asset Contract: the
 * temporary `["Allowance", {from, spender}]` entry, and the shape of transfer / transfer_from / burn / burn_from.
 * Each contract keeps what differs for real: its balances, its events and how it fails (PT panics, SAC typed errors).
 */
export interface Sep41Rules {
  /** Refuses a negative amount the way the contract does. */
  nonNegative(amount: bigint): void;
  /** Debits, credits and emits the contract's own `transfer` event. */
  move(env: ContractEnv, from: string, to: string, amount: bigint): void;
  /** Debits and emits the contract's own `burn` event (and its supply bookkeeping). */
  burn(env: ContractEnv, from: string, amount: bigint): void;
  insufficientAllowance(): Error;
}

const allowanceKey = (from: string, spender: string): xdr.ScVal => dataKey('Allowance', struct({ from: addr(from), spender: addr(spender) }));

/** The live allowance: 0 once its expiration ledger has passed. */
export function readAllowance(env: ContractEnv, from: string, spender: string): bigint {
  const v = env.temporary.get(allowanceKey(from, spender));
  if (!v) return 0n;
  const s = asStruct(v);
  return asU32(field(s, 'expiration_ledger')) < env.ledgerSequence ? 0n : asI128(field(s, 'amount'));
}

/** Stores the allowance in temporary storage, live until its expiration ledger. */
export function writeAllowance(env: ContractEnv, from: string, spender: string, amount: bigint, expiration: number): void {
  env.temporary.set(
    allowanceKey(from, spender),
    struct({ amount: i128(amount), expiration_ledger: u32(expiration) }),
    Math.max(1, expiration - env.ledgerSequence + 1),
  );
}

function spendAllowance(env: ContractEnv, rules: Sep41Rules, from: string, spender: string, amount: bigint): void {
  const current = readAllowance(env, from, spender);
  if (current < amount) throw rules.insufficientAllowance();
  const expiration = asU32(field(asStruct(env.temporary.get(allowanceKey(from, spender))), 'expiration_ledger'));
  writeAllowance(env, from, spender, current - amount, expiration);
}

/** transfer, transfer_from, burn and burn_from over a contract's own rules. */
export function sep41Transfers(rules: Sep41Rules): Record<'transfer' | 'transfer_from' | 'burn' | 'burn_from', ContractFunction> {
  return {
    transfer(env, args) {
      expectArgs(args, 3);
      const from = asAddress(args[0]);
      const to = asAddress(args[1]);
      const amount = asI128(args[2]);
      env.requireAuth(from);
      rules.nonNegative(amount);
      rules.move(env, from, to, amount);
      return voidVal();
    },
    transfer_from(env, args) {
      expectArgs(args, 4);
      const spender = asAddress(args[0]);
      const from = asAddress(args[1]);
      const to = asAddress(args[2]);
      const amount = asI128(args[3]);
      env.requireAuth(spender);
      rules.nonNegative(amount);
      spendAllowance(env, rules, from, spender, amount);
      rules.move(env, from, to, amount);
      return voidVal();
    },
    burn(env, args) {
      expectArgs(args, 2);
      const from = asAddress(args[0]);
      const amount = asI128(args[1]);
      env.requireAuth(from);
      rules.nonNegative(amount);
      rules.burn(env, from, amount);
      return voidVal();
    },
    burn_from(env, args) {
      expectArgs(args, 3);
      const spender = asAddress(args[0]);
      const from = asAddress(args[1]);
      const amount = asI128(args[2]);
      env.requireAuth(spender);
      rules.nonNegative(amount);
      spendAllowance(env, rules, from, spender, amount);
      rules.burn(env, from, amount);
      return voidVal();
    },
  };
}
