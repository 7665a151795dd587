/**
 * Token amounts are i128 base units (bigint). The API shows them as decimal strings with the token's decimals,
 * trailing zeros trimmed but never below two decimals ("12.50", "0.0000001") — docs/decisions.md#d1.
 */
export function formatAmount(baseUnits: bigint | string, decimals: number): string {
  const v = typeof baseUnits === 'bigint' ? baseUnits : BigInt(baseUnits);
  const negative = v < 0n;
  const abs = negative ? -v : v;
  const scale = 10n ** BigInt(decimals);
  const whole = abs / scale;
  let frac = decimals > 0 ? (abs % scale).toString().padStart(decimals, '0') : '';
  frac = frac.replace(/0+$/, '');
  if (frac.length < 2) frac = frac.padEnd(2, '0');
  return `${negative ? '-' : ''}${whole.toString()}.${frac}`;
}

/** floor(total / shares) in base units; zero shares gives zero (no division by zero on an empty pool). */
export function perShare(total: bigint, shares: bigint): bigint {
  return shares > 0n ? total / shares : 0n;
}

/** Percent as a JS number for display (participation, progress): exact integer ratio rounded to 4 decimals. */
export function percent(part: bigint, whole: bigint): number {
  if (whole <= 0n) return 0;
  // 10^6 fixed point, then to number: the value shown is a ratio, not money, so a number is what the API documents (docs/agent-api.md#conventions).
  return Number((part * 100_000_000n) / whole) / 1_000_000;
}
