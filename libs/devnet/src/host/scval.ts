import { Address, nativeToScVal, scValToBigInt, xdr } from '@stellar/stellar-sdk';
import { scValBase64 } from './fast-xdr';
import { HostError } from './host-errors';

/**
 * ScVal builders and readers used by the contracts. Encodings follow soroban-sdk 23 as listed in
 * docs/contracts.md §1: Symbols, Addresses, i128/u64/u32, tuples as Vec, #[contracttype] structs as Maps with
 * field-name Symbol keys sorted, unit enums as u32, Option::None as Void.
 */

export const sym = (s: string): xdr.ScVal => xdr.ScVal.scvSymbol(s);
export const str = (s: string): xdr.ScVal => xdr.ScVal.scvString(s);
/**
 * Address ⇄ strkey conversions (base32 + CRC16) dominated the host's profile, so both directions are memoised.
 * The cached ScVal objects are shared: nothing in the devnet mutates an ScVal after building it.
 */
const CACHE_LIMIT = 200_000;
const scAddresses = new Map<string, xdr.ScVal>();
const strkeys = new Map<string, string>();
export function addr(a: string): xdr.ScVal {
  let v = scAddresses.get(a);
  if (!v) {
    v = Address.fromString(a).toScVal();
    if (scAddresses.size >= CACHE_LIMIT) scAddresses.clear();
    scAddresses.set(a, v);
  }
  return v;
}
export const i128 = (n: bigint): xdr.ScVal => nativeToScVal(n, { type: 'i128' });
export const u64 = (n: bigint): xdr.ScVal => xdr.ScVal.scvU64(n);
export const u32 = (n: number): xdr.ScVal => xdr.ScVal.scvU32(n);
export const bool = (b: boolean): xdr.ScVal => xdr.ScVal.scvBool(b);
export const bytes = (b: Uint8Array): xdr.ScVal => xdr.ScVal.scvBytes(b);
export const voidVal = (): xdr.ScVal => xdr.ScVal.scvVoid();
export const vec = (items: readonly xdr.ScVal[]): xdr.ScVal => xdr.ScVal.scvVec([...items]);
/** A storage key of a `#[contracttype] enum DataKey` variant: `[Sym(Variant), ...fields]`. */
export const dataKey = (variant: string, ...fields: xdr.ScVal[]): xdr.ScVal => vec([sym(variant), ...fields]);
export const option = (v: xdr.ScVal | undefined): xdr.ScVal => v ?? voidVal();

/** A `#[contracttype]` struct: Map keyed by field-name Symbols, keys sorted (soroban-sdk requires sorted maps). */
export function struct(fields: Record<string, xdr.ScVal>): xdr.ScVal {
  const names = Object.keys(fields).sort(compareAscii);
  return xdr.ScVal.scvMap(names.map((n) => new xdr.ScMapEntry({ key: sym(n), val: fields[n]! })));
}

function compareAscii(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function unexpected(what: string): HostError {
  return HostError.valueUnexpectedType(`expected ${what}`);
}

export function asI128(v: xdr.ScVal | undefined): bigint {
  if (!v || v.type !== 'scvI128') throw unexpected('i128');
  return scValToBigInt(v);
}
export function asU64(v: xdr.ScVal | undefined): bigint {
  if (!v || v.type !== 'scvU64') throw unexpected('u64');
  return v.u64;
}
export function asU32(v: xdr.ScVal | undefined): number {
  if (!v || v.type !== 'scvU32') throw unexpected('u32');
  return v.u32;
}
export function asBool(v: xdr.ScVal | undefined): boolean {
  if (!v || v.type !== 'scvBool') throw unexpected('bool');
  return v.b;
}
export function asAddress(v: xdr.ScVal | undefined): string {
  if (!v || v.type !== 'scvAddress') throw unexpected('address');
  const a = v.address as unknown as { type: string; accountId?: { type: string; ed25519: { value: Uint8Array } }; contractId?: { value: Uint8Array } };
  const raw =
    a.type === 'scAddressTypeAccount' && a.accountId?.type === 'publicKeyTypeEd25519'
      ? a.accountId.ed25519.value
      : a.type === 'scAddressTypeContract'
        ? a.contractId?.value
        : undefined;
  if (!raw) return Address.fromScVal(v).toString();
  const id = a.type[13] + Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength).toString('latin1');
  let s = strkeys.get(id);
  if (s === undefined) {
    s = Address.fromScVal(v).toString();
    if (strkeys.size >= CACHE_LIMIT) strkeys.clear();
    strkeys.set(id, s);
  }
  return s;
}
export function asString(v: xdr.ScVal | undefined): string {
  if (!v || (v.type !== 'scvString' && v.type !== 'scvSymbol')) throw unexpected('string');
  return v.value;
}
export function asBytes(v: xdr.ScVal | undefined): Uint8Array {
  if (!v || v.type !== 'scvBytes') throw unexpected('bytes');
  return v.toXdrObject().bytes as Uint8Array;
}
export function asVec(v: xdr.ScVal | undefined): xdr.ScVal[] {
  if (!v || v.type !== 'scvVec') throw unexpected('vec');
  return v.vec ?? [];
}
/** Reads a struct Map into a field-name record. */
export function asStruct(v: xdr.ScVal | undefined): Record<string, xdr.ScVal> {
  if (!v || v.type !== 'scvMap') throw unexpected('map');
  const out: Record<string, xdr.ScVal> = {};
  for (const e of v.map ?? []) out[asString(e.key)] = e.val;
  return out;
}
export function field(s: Record<string, xdr.ScVal>, name: string): xdr.ScVal {
  const v = s[name];
  if (!v) throw HostError.valueUnexpectedType(`missing field ${name}`);
  return v;
}

export const scvEquals = (a: xdr.ScVal, b: xdr.ScVal): boolean => scValBase64(a) === scValBase64(b);

/** ScValType discriminants (Stellar-contract.x), by the SDK's arm names. */
const SCV_ORDER: Record<string, number> = {
  scvBool: 0,
  scvVoid: 1,
  scvError: 2,
  scvU32: 3,
  scvI32: 4,
  scvU64: 5,
  scvI64: 6,
  scvTimepoint: 7,
  scvDuration: 8,
  scvU128: 9,
  scvI128: 10,
  scvU256: 11,
  scvI256: 12,
  scvBytes: 13,
  scvString: 14,
  scvSymbol: 15,
  scvVec: 16,
  scvMap: 17,
  scvAddress: 18,
  scvContractInstance: 19,
  scvLedgerKeyContractInstance: 20,
  scvLedgerKeyNonce: 21,
};
const typeCode = (v: xdr.ScVal): number => SCV_ORDER[v.type] ?? v.toXdrObject().type;

/**
 * Total order of ScVals as the Soroban host defines it (type discriminant first, then value), used to keep
 * instance storage maps sorted like the real host does.
 */
export function compareScVal(a: xdr.ScVal, b: xdr.ScVal): number {
  const ta = typeCode(a);
  const tb = typeCode(b);
  if (ta !== tb) return ta - tb;
  switch (a.type) {
    case 'scvU32':
    case 'scvI32':
    case 'scvU64':
    case 'scvI64':
    case 'scvTimepoint':
    case 'scvDuration':
    case 'scvU128':
    case 'scvI128': {
      const x = scValToBigInt(a);
      const y = scValToBigInt(b);
      return x < y ? -1 : x > y ? 1 : 0;
    }
    case 'scvVec': {
      const xs = a.vec ?? [];
      const ys = (b as typeof a).vec ?? [];
      for (let i = 0; i < Math.min(xs.length, ys.length); i++) {
        const c = compareScVal(xs[i]!, ys[i]!);
        if (c !== 0) return c;
      }
      return xs.length - ys.length;
    }
    case 'scvSymbol':
    case 'scvString':
      return compareBytes(Buffer.from(a.value), Buffer.from(asString(b)));
    case 'scvBytes':
      return compareBytes(asBytes(a), asBytes(b));
    default:
      // Addresses: type then 32 key bytes; the XDR encoding orders the same way.
      return compareBytes(Buffer.from(scValBase64(a), 'base64'), Buffer.from(scValBase64(b), 'base64'));
  }
}

function compareBytes(x: Uint8Array, y: Uint8Array): number {
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
  return x.length - y.length;
}
