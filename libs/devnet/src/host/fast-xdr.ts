import type { xdr } from '@stellar/stellar-sdk';

/**
 * A hand-written XDR encoder for the values the host encodes on every storage access: LedgerKeys (their base64 is
 * the world-state id) and the ScVals inside them. js-xdr allocates an 8 KiB writer per `toXdr()`, which made key
 * encoding the host's top cost; this writes into one reused buffer instead. It produces exactly the bytes of
 * `toXdr()` (RFC 4506 big-endian, 4-byte padding; layouts from Stellar-contract.x / Stellar-ledger-entries.x) and
 * falls back to `toXdr()` for any arm it does not know — fast-xdr.spec.ts checks both agree.
 */
export class XdrOut {
  buf = Buffer.allocUnsafe(4096);
  len = 0;

  private room(n: number) {
    if (this.len + n <= this.buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.len + n));
    this.buf.copy(next, 0, 0, this.len);
    this.buf = next;
  }
  u32(n: number) {
    this.room(4);
    this.buf.writeUInt32BE(n >>> 0, this.len);
    this.len += 4;
  }
  i32(n: number) {
    this.room(4);
    this.buf.writeInt32BE(n, this.len);
    this.len += 4;
  }
  u64(n: bigint) {
    this.room(8);
    this.buf.writeBigUInt64BE(BigInt.asUintN(64, n), this.len);
    this.len += 8;
  }
  /** Fixed opaque (no length prefix). */
  fixed(bytes: Uint8Array) {
    this.room(bytes.length + 3);
    this.buf.set(bytes, this.len);
    this.len += bytes.length;
    const pad = (4 - (bytes.length % 4)) % 4;
    for (let i = 0; i < pad; i++) this.buf[this.len++] = 0;
  }
  /** The bytes written so far (a copy). */
  bytes(): Buffer {
    return Buffer.from(this.buf.subarray(0, this.len));
  }
  /** Variable opaque / string: length prefix, bytes, padding. */
  opaque(bytes: Uint8Array) {
    this.u32(bytes.length);
    this.fixed(bytes);
  }
}

const out = new XdrOut();

const SCV: Record<string, number> = {
  scvBool: 0,
  scvVoid: 1,
  scvU32: 3,
  scvI32: 4,
  scvU64: 5,
  scvI64: 6,
  scvTimepoint: 7,
  scvDuration: 8,
  scvU128: 9,
  scvI128: 10,
  scvBytes: 13,
  scvString: 14,
  scvSymbol: 15,
  scvVec: 16,
  scvMap: 17,
  scvAddress: 18,
  scvLedgerKeyContractInstance: 20,
};

type AnyVal = Record<string, unknown> & { type: string };

export function writeAddress(out: XdrOut, a: xdr.ScAddress): boolean {
  const v = a as unknown as { type: string; accountId?: { type: string; ed25519: { value: Uint8Array } }; contractId?: { value: Uint8Array } };
  if (v.type === 'scAddressTypeAccount' && v.accountId?.type === 'publicKeyTypeEd25519') {
    out.u32(0);
    out.u32(0);
    out.fixed(v.accountId.ed25519.value);
    return true;
  }
  if (v.type === 'scAddressTypeContract' && v.contractId) {
    out.u32(1);
    out.fixed(v.contractId.value);
    return true;
  }
  return false;
}

export function writeScVal(out: XdrOut, val: xdr.ScVal): boolean {
  const v = val as unknown as AnyVal;
  const code = SCV[v.type];
  if (code === undefined) return false;
  out.i32(code);
  switch (v.type) {
    case 'scvBool':
      out.u32(v.b ? 1 : 0);
      return true;
    case 'scvVoid':
    case 'scvLedgerKeyContractInstance':
      return true;
    case 'scvU32':
      out.u32(v.u32 as number);
      return true;
    case 'scvI32':
      out.i32(v.i32 as number);
      return true;
    case 'scvU64':
    case 'scvI64':
    case 'scvTimepoint':
    case 'scvDuration':
      out.u64(v[v.type === 'scvU64' ? 'u64' : v.type === 'scvI64' ? 'i64' : v.type === 'scvTimepoint' ? 'timepoint' : 'duration'] as bigint);
      return true;
    case 'scvI128':
    case 'scvU128': {
      const parts = v[v.type === 'scvI128' ? 'i128' : 'u128'] as { hi: bigint; lo: bigint };
      out.u64(parts.hi);
      out.u64(parts.lo);
      return true;
    }
    case 'scvBytes':
      out.opaque((v.bytes as { value: Uint8Array }).value);
      return true;
    case 'scvString':
    case 'scvSymbol': {
      const s = v[v.type === 'scvString' ? 'str' : 'sym'] as { bytes?: Uint8Array };
      if (!(s?.bytes instanceof Uint8Array)) return false;
      out.opaque(s.bytes);
      return true;
    }
    case 'scvVec': {
      const items = v.vec as xdr.ScVal[] | null;
      if (!items) {
        out.u32(0);
        return true;
      }
      out.u32(1);
      out.u32(items.length);
      for (const item of items) if (!writeScVal(out, item)) return false;
      return true;
    }
    case 'scvMap': {
      const entries = v.map as { key: xdr.ScVal; val: xdr.ScVal }[] | null;
      if (!entries) {
        out.u32(0);
        return true;
      }
      out.u32(1);
      out.u32(entries.length);
      for (const e of entries) if (!writeScVal(out, e.key) || !writeScVal(out, e.val)) return false;
      return true;
    }
    case 'scvAddress':
      return writeAddress(out, v.address as xdr.ScAddress);
    default:
      return false;
  }
}

/** XDR bytes of an ScVal (a copy, safe to keep). */
export function scValBytes(val: xdr.ScVal): Buffer {
  out.len = 0;
  if (!writeScVal(out, val)) return Buffer.from(val.toXdr());
  return Buffer.from(out.buf.subarray(0, out.len));
}

/** base64 XDR of an ScVal, the same string as `val.toXdr('base64')`. */
export function scValBase64(val: xdr.ScVal): string {
  out.len = 0;
  if (!writeScVal(out, val)) return val.toXdr('base64');
  return out.buf.toString('base64', 0, out.len);
}

/** base64 XDR of a LedgerKey (account and contractData arms fast, others through js-xdr). */
export function ledgerKeyBase64(key: xdr.LedgerKey): string {
  const k = key as unknown as {
    type: string;
    account?: { accountId: { type: string; ed25519: { value: Uint8Array } } };
    contractData?: { contract: xdr.ScAddress; key: xdr.ScVal; durability: { value: number } };
  };
  out.len = 0;
  if (k.type === 'account' && k.account?.accountId.type === 'publicKeyTypeEd25519') {
    out.i32(0);
    out.u32(0);
    out.fixed(k.account.accountId.ed25519.value);
    return out.buf.toString('base64', 0, out.len);
  }
  if (k.type === 'contractData' && k.contractData) {
    out.i32(6);
    if (writeAddress(out, k.contractData.contract) && writeScVal(out, k.contractData.key)) {
      out.i32(k.contractData.durability.value);
      return out.buf.toString('base64', 0, out.len);
    }
  }
  return key.toXdr('base64');
}
