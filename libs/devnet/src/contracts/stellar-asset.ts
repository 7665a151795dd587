import { StrKey, xdr } from '@stellar/stellar-sdk';
import { HostError } from '../host/host-errors';
import {
  addr,
  asAddress,
  asBool,
  asI128,
  asStruct,
  asString,
  asU32,
  bool,
  bytes,
  dataKey,
  field,
  i128,
  str,
  struct,
  sym,
  u32,
  vec,
  voidVal,
} from '../host/scval';
import { expectArgs, type ContractDefinition, type ContractEnv, type ContractFunction } from './contract';
import { readAllowance, sep41Transfers, writeAllowance, type Sep41Rules } from './shared/sep41-token';

/**
 * Stellar Asset Contract (SAC) for a classic asset, as the built-in soroban-env-host contract behaves since
 * protocol 23 (CAP-67 events: `[transfer, from, to, Str "CODE:ISSUER"]` → i128, `[mint, to, asset]`,
 * `[burn, from, asset]`, `[clawback, from, asset]`, `[set_admin, admin, asset]`, `[approve, from, spender, asset]`).
 * Storage layout copied from soroban-sdk test snapshots (fixtures/): instance `METADATA` {decimal, name, symbol},
 * `["Admin"]`, `["AssetInfo"]`; persistent `["Balance", addr]` → {amount, authorized, clawback};
 * temporary `["Allowance", {from, spender}]` → {amount, expiration_ledger}.
 *
 * Devnet simplification: there are no trustlines — G-account balances are kept in `["Balance", G…]` contract
 * data exactly like contract balances, so no trustline is needed to receive. The issuer behaves as on classic:
 * sending from the issuer mints (no debit), sending to the issuer burns (no credit); its balance reads i64::MAX.
 * The native asset's G-account balances are likewise contract data, not the account entry's XLM balance.
 *
 * Error codes are the host's SAC ContractError: 8 NegativeAmountError, 9 AllowanceError, 10 BalanceError,
 * 12 OverflowError.
 */

const NEGATIVE_AMOUNT = 8;
const ALLOWANCE_ERROR = 9;
const BALANCE_ERROR = 10;
const OVERFLOW = 12;
const I64_MAX = 9_223_372_036_854_775_807n;
const I128_MAX = (1n << 127n) - 1n;

const METADATA = sym('METADATA');
const ADMIN = dataKey('Admin');
const ASSET_INFO = dataKey('AssetInfo');

/** Instance storage of a freshly deployed SAC (admin = issuer). */
export function sacInstanceStorage(code: string, issuer: string | undefined): xdr.ScMapEntry[] {
  const native = code === 'native' && !issuer;
  if (!native && !issuer) throw new Error('a non-native asset needs an issuer');
  const name = native ? 'native' : `${code}:${issuer}`;
  const entries: Array<[xdr.ScVal, xdr.ScVal]> = [[METADATA, struct({ decimal: u32(7), name: str(name), symbol: str(native ? 'native' : code) })]];
  if (native) {
    entries.push([ASSET_INFO, vec([sym('Native')])]);
  } else {
    const width = code.length <= 4 ? 4 : 12;
    entries.push([ADMIN, addr(issuer!)]);
    entries.push([
      ASSET_INFO,
      vec([
        sym(width === 4 ? 'AlphaNum4' : 'AlphaNum12'),
        struct({ asset_code: str(code.padEnd(width, '\0')), issuer: bytes(StrKey.decodeEd25519PublicKey(issuer!)) }),
      ]),
    ]);
  }
  // ScVal order: Symbol (METADATA) before Vec keys, and ["Admin"] < ["AssetInfo"].
  return entries.map(([key, val]) => new xdr.ScMapEntry({ key, val }));
}

function assetName(env: ContractEnv): string {
  return asString(field(asStruct(env.instance.get(METADATA)), 'name'));
}

function issuerOf(env: ContractEnv): string | undefined {
  const name = assetName(env);
  return name === 'native' ? undefined : name.slice(name.indexOf(':') + 1);
}

function adminOf(env: ContractEnv): string {
  const a = env.instance.get(ADMIN);
  if (!a) throw HostError.contract(2); // OperationNotSupportedError: the native SAC has no admin
  return asAddress(a);
}

const balanceKey = (id: string): xdr.ScVal => dataKey('Balance', addr(id));

function readBalance(env: ContractEnv, id: string): bigint {
  if (id === issuerOf(env)) return I64_MAX;
  const v = env.persistent.get(balanceKey(id));
  return v ? asI128(field(asStruct(v), 'amount')) : 0n;
}

function writeBalance(env: ContractEnv, id: string, amount: bigint): void {
  env.persistent.set(balanceKey(id), struct({ amount: i128(amount), authorized: bool(true), clawback: bool(false) }));
}

function debit(env: ContractEnv, id: string, amount: bigint): void {
  if (id === issuerOf(env)) return;
  const bal = readBalance(env, id);
  if (bal < amount) throw HostError.contract(BALANCE_ERROR);
  writeBalance(env, id, bal - amount);
}

function credit(env: ContractEnv, id: string, amount: bigint): void {
  if (id === issuerOf(env)) return;
  const bal = readBalance(env, id);
  if (bal + amount > I128_MAX) throw HostError.contract(OVERFLOW);
  writeBalance(env, id, bal + amount);
}

function nonNegative(amount: bigint): void {
  if (amount < 0n) throw HostError.contract(NEGATIVE_AMOUNT);
}

const rules: Sep41Rules = {
  nonNegative,
  move(env, from, to, amount) {
    debit(env, from, amount);
    credit(env, to, amount);
    env.emit([sym('transfer'), addr(from), addr(to), str(assetName(env))], i128(amount));
  },
  burn(env, from, amount) {
    debit(env, from, amount);
    env.emit([sym('burn'), addr(from), str(assetName(env))], i128(amount));
  },
  insufficientAllowance: () => HostError.contract(ALLOWANCE_ERROR),
};

const fns: Record<string, ContractFunction> = {
  balance(env, args) {
    expectArgs(args, 1);
    return i128(readBalance(env, asAddress(args[0])));
  },
  decimals(_env, args) {
    expectArgs(args, 0);
    return u32(7);
  },
  name(env, args) {
    expectArgs(args, 0);
    return str(assetName(env));
  },
  symbol(env, args) {
    expectArgs(args, 0);
    const name = assetName(env);
    return str(name === 'native' ? 'native' : name.slice(0, name.indexOf(':')));
  },
  admin(env, args) {
    expectArgs(args, 0);
    return addr(adminOf(env));
  },
  allowance(env, args) {
    expectArgs(args, 2);
    return i128(readAllowance(env, asAddress(args[0]), asAddress(args[1])));
  },
  authorized(env, args) {
    expectArgs(args, 1);
    asAddress(args[0]);
    return bool(true);
  },
  approve(env, args) {
    expectArgs(args, 4);
    const from = asAddress(args[0]);
    const spender = asAddress(args[1]);
    const amount = asI128(args[2]);
    const expiration = asU32(args[3]);
    env.requireAuth(from);
    nonNegative(amount);
    if (amount > 0n && expiration < env.ledgerSequence) throw HostError.contract(ALLOWANCE_ERROR);
    writeAllowance(env, from, spender, amount, expiration);
    env.emit([sym('approve'), addr(from), addr(spender), str(assetName(env))], vec([i128(amount), u32(expiration)]));
    return voidVal();
  },
  ...sep41Transfers(rules),
  mint(env, args) {
    expectArgs(args, 2);
    const to = asAddress(args[0]);
    const amount = asI128(args[1]);
    env.requireAuth(adminOf(env));
    nonNegative(amount);
    credit(env, to, amount);
    env.emit([sym('mint'), addr(to), str(assetName(env))], i128(amount));
    return voidVal();
  },
  clawback(env, args) {
    expectArgs(args, 2);
    const from = asAddress(args[0]);
    const amount = asI128(args[1]);
    env.requireAuth(adminOf(env));
    nonNegative(amount);
    debit(env, from, amount);
    env.emit([sym('clawback'), addr(from), str(assetName(env))], i128(amount));
    return voidVal();
  },
  set_admin(env, args) {
    expectArgs(args, 1);
    const newAdmin = asAddress(args[0]);
    const admin = adminOf(env);
    env.requireAuth(admin);
    env.instance.set(ADMIN, addr(newAdmin));
    env.emit([sym('set_admin'), addr(admin), str(assetName(env))], addr(newAdmin));
    return voidVal();
  },
  set_authorized(env, args) {
    expectArgs(args, 2);
    const id = asAddress(args[0]);
    const authorize = asBool(args[1]);
    env.requireAuth(adminOf(env));
    if (!authorize) throw HostError.contract(2); // devnet: every holder stays authorized
    env.emit([sym('set_authorized'), addr(id), str(assetName(env))], bool(authorize));
    return voidVal();
  },
};

export const stellarAsset: ContractDefinition = { kind: 'stellar_asset', functions: fns };
