/**
 * Exact numbers as strings whose byte order is their numeric order. MongoDB's Decimal128 would be the natural type,
 * but FerretDB 1.x drops the connection on it, and int64 cannot hold i128 amounts; so amounts are stored as these
 * strings, which sort, compare ($gt, $lt) and index correctly in every MongoDB-protocol server.
 */
const WIDTH = 40; // i128 needs 39 digits
const LIMIT = 10n ** BigInt(WIDTH);

/** `p` + 40 digits for v ≥ 0, `n` + 40 digits of 10^40 + v for v < 0 (so −2 < −1 < 0 < 1 byte-wise). */
export function encodeAmount(v: bigint): string {
  if (v >= LIMIT || v <= -LIMIT) throw new RangeError(`amount ${v} has more than ${WIDTH} digits`);
  return v >= 0n ? `p${v.toString().padStart(WIDTH, '0')}` : `n${(LIMIT + v).toString().padStart(WIDTH, '0')}`;
}

export function decodeAmount(s: string): bigint {
  const digits = BigInt(s.slice(1));
  if (s[0] === 'p') return digits;
  if (s[0] === 'n') return digits - LIMIT;
  throw new Error(`not an encoded amount: ${JSON.stringify(s)}`);
}

const DECIMAL = /^(-?)(\d+)(?:\.(\d+))?$/;

/**
 * The sort key of a decimal written as text ("12.50" and "12.5" share one key): sign, the integer part at a fixed
 * width, then the fraction with trailing zeros trimmed (shorter sorts first). Negatives take the nines' complement
 * of every digit and end on `~`, above every digit, which reverses their order.
 */
export function decimalSortKey(text: string): string {
  const m = DECIMAL.exec(text);
  if (!m) throw new Error(`not a decimal: ${JSON.stringify(text)}`);
  const whole = BigInt(m[2]!);
  const fraction = (m[3] ?? '').replace(/0+$/, '');
  if (whole >= LIMIT) throw new RangeError(`decimal ${text} has more than ${WIDTH} integer digits`);
  if (m[1] !== '-' || (whole === 0n && fraction === '')) return `p${whole.toString().padStart(WIDTH, '0')}.${fraction}`;
  const complement = (digits: string) => [...digits].map((d) => String(9 - Number(d))).join('');
  return `n${complement(whole.toString().padStart(WIDTH, '0'))}.${complement(fraction)}~`;
}

/** A global position ({commit, prepare} ≥ 0) as fixed-width text, so `_pos` compares with $lt. */
export function encodePosition(p: { commit: bigint; prepare: bigint }): string {
  if (p.commit < 0n || p.prepare < 0n) throw new RangeError('START is no document position');
  return `${p.commit.toString().padStart(20, '0')}:${p.prepare.toString().padStart(20, '0')}`;
}
