import { AppError } from '@dob/domain';

/**
 * A decimal string in token units ("12.5") → i128 base units (bigint). Money never passes through a float
 * (docs/decisions.md#d1: i128 base units, decimal strings in JSON). More fractional digits than the token has is an
 * error rather than a silent rounding.
 */
export function parseTokenAmount(value: string, decimals: number, field: string): bigint {
  const text = value.trim();
  const m = /^(-?)(\d+)(?:\.(\d+))?$/.exec(text);
  if (!m) throw AppError.validation(`${field} must be a decimal string such as "12.50"`, { fields: { [field]: 'must be a decimal string' } });
  const [, sign, whole, frac = ''] = m;
  if (frac.length > decimals) {
    throw AppError.validation(`${field} has more than ${decimals} decimal places`, { fields: { [field]: `at most ${decimals} decimal places` } });
  }
  const units = BigInt(whole) * 10n ** BigInt(decimals) + BigInt(frac.padEnd(decimals, '0') || '0');
  return sign === '-' ? -units : units;
}

/** Percent of part in whole with two decimals as a string ("42.17"); 0 when whole is 0. */
export function percentString(part: bigint, whole: bigint): string {
  if (whole <= 0n) return '0.00';
  const hundredths = (part * 10_000n) / whole;
  const sign = hundredths < 0n ? '-' : '';
  const abs = hundredths < 0n ? -hundredths : hundredths;
  return `${sign}${abs / 100n}.${(abs % 100n).toString().padStart(2, '0')}`;
}
