import { Address, scValToBigInt, xdr } from '@stellar/stellar-sdk';

/** Thrown by the strict ScVal readers; the dispatcher turns it into ChainEventUndecoded with this reason. */
export class DecodeError extends Error {
  override readonly name = 'DecodeError';
}

const kind = (v: xdr.ScVal): string => v.type;

function expect<K extends xdr.ScVal['type']>(v: xdr.ScVal | undefined, type: K, what: string): Extract<xdr.ScVal, { type: K }> {
  if (!v) throw new DecodeError(`${what}: missing`);
  if (kind(v) !== type) throw new DecodeError(`${what}: expected ${type}, got ${kind(v)}`);
  return v as Extract<xdr.ScVal, { type: K }>;
}

export function readSymbol(v: xdr.ScVal | undefined, what = 'symbol'): string {
  return expect(v, 'scvSymbol', what).sym.toString();
}

export function readAddress(v: xdr.ScVal | undefined, what = 'address'): string {
  const sv = expect(v, 'scvAddress', what);
  const a = sv.address;
  const bytes = a.type === 'scAddressTypeAccount' ? a.accountId.ed25519.toBytes() : a.type === 'scAddressTypeContract' ? a.contractId.value : null;
  if (!bytes) return Address.fromScVal(sv).toString();
  // Strkey encoding (base32 + CRC16, and a decode back inside Address) was the decoders' costliest step, and a
  // chain repeats few accounts and contracts: their strkeys are remembered by their 32 bytes (bounded).
  const key = a.type[13] + Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
  let strkey = STRKEYS.get(key);
  if (strkey === undefined) {
    if (STRKEYS.size >= MAX_STRKEYS) STRKEYS.clear();
    STRKEYS.set(key, (strkey = Address.fromScVal(sv).toString()));
  }
  return strkey;
}

const STRKEYS = new Map<string, string>();
const MAX_STRKEYS = 100_000;

export function readContractAddress(v: xdr.ScVal | undefined, what = 'contract address'): string {
  const a = readAddress(v, what);
  if (!a.startsWith('C')) throw new DecodeError(`${what}: expected a contract address, got ${a}`);
  return a;
}

/** i128 stays bigint here; it becomes a decimal string only when the payload is serialised. */
export function readI128(v: xdr.ScVal | undefined, what = 'i128'): bigint {
  return scValToBigInt(expect(v, 'scvI128', what));
}

export function readU64(v: xdr.ScVal | undefined, what = 'u64'): bigint {
  return expect(v, 'scvU64', what).u64;
}

export function readU32(v: xdr.ScVal | undefined, what = 'u32'): number {
  return expect(v, 'scvU32', what).u32;
}

export function readBool(v: xdr.ScVal | undefined, what = 'bool'): boolean {
  return expect(v, 'scvBool', what).b;
}

export function readString(v: xdr.ScVal | undefined, what = 'string'): string {
  return expect(v, 'scvString', what).str.toString();
}

export function readVoid(v: xdr.ScVal | undefined, what = 'void'): void {
  expect(v, 'scvVoid', what);
}

/** A tuple on the wire (ScVal Vec) of exactly one of the allowed lengths. */
export function readTuple(v: xdr.ScVal | undefined, lengths: readonly number[], what = 'data'): xdr.ScVal[] {
  const items = expect(v, 'scvVec', what).vec ?? [];
  if (!lengths.includes(items.length)) {
    throw new DecodeError(`${what}: expected a vec of ${lengths.join(' or ')} items, got ${items.length}`);
  }
  return items;
}

export function expectTopicCount(topics: readonly xdr.ScVal[], counts: readonly number[]): void {
  if (!counts.includes(topics.length)) {
    throw new DecodeError(`expected ${counts.join(' or ')} topics, got ${topics.length}`);
  }
}

/** Unix seconds (u64) → ISO-8601; out-of-range values cannot be dates and are undecodable. */
export function unixToIso(seconds: bigint, what = 'timestamp'): string {
  const ms = seconds * 1000n;
  if (ms > 8_640_000_000_000_000n) throw new DecodeError(`${what}: ${seconds} is beyond the representable date range`);
  return new Date(Number(ms)).toISOString();
}
