import { HostError } from '../host/host-errors';
import { addr, asAddress, asI128, asStruct, asString, asU32, dataKey, field, i128, str, struct, sym, u32, vec, voidVal } from '../host/scval';
import { DAY_LEDGERS, expectArgs, type ContractDefinition, type ContractEnv, type ContractFunction } from './contract';
import { readAllowance, sep41Transfers, writeAllowance, type Sep41Rules } from './shared/sep41-token';

/**
 * participation_token 0.2.0 (d6291db, post-audit: non-negative amounts, clawback, total_supply), the V2 pool's
 * share token (docs/contracts.md §5). Old-style events without an asset topic. Failures are Rust panics
 * (no typed errors), which the host reports as Error(WasmVm, InvalidAction).
 * Storage: instance `["Admin"]`, `["Metadata"]` {decimal, name, symbol}, `["TotalSupply"]`;
 * persistent `["Balance", a]` i128 (TTL 120 d); temporary `["Allowance", {from, spender}]` {amount, expiration_ledger}.
 */
const ADMIN = dataKey('Admin');
const METADATA = dataKey('Metadata');
const TOTAL_SUPPLY = dataKey('TotalSupply');
const BALANCE_TTL = 120 * DAY_LEDGERS;

function admin(env: ContractEnv): string {
  const v = env.instance.get(ADMIN);
  if (!v) throw HostError.panic('not initialized');
  return asAddress(v);
}

const balanceKey = (a: string) => dataKey('Balance', addr(a));
const balanceOf = (env: ContractEnv, a: string): bigint => {
  const v = env.persistent.get(balanceKey(a));
  return v ? asI128(v) : 0n;
};
const setBalance = (env: ContractEnv, a: string, n: bigint): void => env.persistent.set(balanceKey(a), i128(n), BALANCE_TTL);
const totalSupply = (env: ContractEnv): bigint => {
  const v = env.instance.get(TOTAL_SUPPLY);
  return v ? asI128(v) : 0n;
};

function nonNegative(n: bigint): void {
  if (n < 0n) throw HostError.panic('negative amount is not allowed');
}

function spend(env: ContractEnv, a: string, n: bigint): void {
  const b = balanceOf(env, a);
  if (b < n) throw HostError.panic('insufficient balance');
  setBalance(env, a, b - n);
}

const rules: Sep41Rules = {
  nonNegative,
  move(env, from, to, n) {
    spend(env, from, n);
    setBalance(env, to, balanceOf(env, to) + n);
    env.emit([sym('transfer'), addr(from), addr(to)], i128(n));
  },
  burn(env, from, n) {
    spend(env, from, n);
    env.instance.set(TOTAL_SUPPLY, i128(totalSupply(env) - n));
    env.emit([sym('burn'), addr(from)], i128(n));
  },
  insufficientAllowance: () => HostError.panic('insufficient allowance'),
};

const meta = (env: ContractEnv) => asStruct(env.instance.get(METADATA));

const fns: Record<string, ContractFunction> = {
  initialize(env, args) {
    expectArgs(args, 4);
    const a = asAddress(args[0]);
    const decimal = asU32(args[1]);
    const name = asString(args[2]);
    const symbol = asString(args[3]);
    if (env.instance.has(ADMIN)) throw HostError.panic('already initialized');
    env.instance.set(ADMIN, addr(a));
    env.instance.set(METADATA, struct({ decimal: u32(decimal), name: str(name), symbol: str(symbol) }));
    return voidVal();
  },
  mint(env, args) {
    expectArgs(args, 2);
    const to = asAddress(args[0]);
    const n = asI128(args[1]);
    nonNegative(n);
    const a = admin(env);
    env.requireAuth(a);
    setBalance(env, to, balanceOf(env, to) + n);
    env.instance.set(TOTAL_SUPPLY, i128(totalSupply(env) + n));
    env.emit([sym('mint'), addr(a), addr(to)], i128(n));
    return voidVal();
  },
  clawback(env, args) {
    expectArgs(args, 2);
    const from = asAddress(args[0]);
    const n = asI128(args[1]);
    nonNegative(n);
    const a = admin(env);
    env.requireAuth(a);
    spend(env, from, n);
    env.instance.set(TOTAL_SUPPLY, i128(totalSupply(env) - n));
    env.emit([sym('clawback'), addr(a), addr(from)], i128(n));
    return voidVal();
  },
  total_supply(env, args) {
    expectArgs(args, 0);
    return i128(totalSupply(env));
  },
  set_admin(env, args) {
    expectArgs(args, 1);
    const next = asAddress(args[0]);
    const a = admin(env);
    env.requireAuth(a);
    env.instance.set(ADMIN, addr(next));
    env.emit([sym('set_admin'), addr(a)], addr(next));
    return voidVal();
  },
  admin(env, args) {
    expectArgs(args, 0);
    return addr(admin(env));
  },
  allowance(env, args) {
    expectArgs(args, 2);
    return i128(readAllowance(env, asAddress(args[0]), asAddress(args[1])));
  },
  approve(env, args) {
    expectArgs(args, 4);
    const from = asAddress(args[0]);
    const spender = asAddress(args[1]);
    const n = asI128(args[2]);
    const exp = asU32(args[3]);
    env.requireAuth(from);
    nonNegative(n);
    if (n > 0n && exp < env.ledgerSequence) throw HostError.panic('expiration_ledger is in the past');
    writeAllowance(env, from, spender, n, exp);
    env.emit([sym('approve'), addr(from), addr(spender)], vec([i128(n), u32(exp)]));
    return voidVal();
  },
  balance(env, args) {
    expectArgs(args, 1);
    return i128(balanceOf(env, asAddress(args[0])));
  },
  ...sep41Transfers(rules),
  decimals(env, args) {
    expectArgs(args, 0);
    return field(meta(env), 'decimal');
  },
  name(env, args) {
    expectArgs(args, 0);
    return field(meta(env), 'name');
  },
  symbol(env, args) {
    expectArgs(args, 0);
    return field(meta(env), 'symbol');
  },
};

export const participationToken: ContractDefinition = { kind: 'participation_token', functions: fns };
