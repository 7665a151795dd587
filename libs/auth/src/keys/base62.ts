const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Big-endian bytes (or an unsigned integer) as base62, left-padded with '0' to `width` characters. */
export function base62(input: Uint8Array | number, width: number): string {
  // A safe integer (the key checksum, on every guarded request) in plain number arithmetic: no BigInt per digit.
  if (typeof input === 'number' && Number.isSafeInteger(input) && input >= 0) return base62Number(input, width);
  let n = typeof input === 'number' ? BigInt(input) : BigInt('0x' + (Buffer.from(input).toString('hex') || '0'));
  let out = '';
  while (n > 0n) {
    out = ALPHABET[Number(n % 62n)]! + out;
    n /= 62n;
  }
  if (out.length > width) throw new RangeError(`value needs ${out.length} base62 digits, width is ${width}`);
  return out.padStart(width, '0');
}

function base62Number(value: number, width: number): string {
  let n = value;
  let out = '';
  while (n > 0) {
    out = ALPHABET[n % 62]! + out;
    n = Math.floor(n / 62);
  }
  if (out.length > width) throw new RangeError(`value needs ${out.length} base62 digits, width is ${width}`);
  return out.padStart(width, '0');
}

export const BASE62_CHARS = /^[0-9A-Za-z]+$/;
