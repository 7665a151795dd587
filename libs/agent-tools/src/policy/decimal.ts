/**
 * Token amounts as the API writes them ("12.50", decimal strings in token units), held as bigint at 18 decimals:
 * more than any Stellar token uses (7), so parsing is exact and sums never round. Money is never a float here.
 */
const SCALE = 18;
const ONE = 10n ** BigInt(SCALE);

export type Units = bigint;

export function parseDecimal(text: string, what = 'amount'): Units {
  const m = /^(\d+)(?:\.(\d{1,18}))?$/.exec(text.trim());
  if (!m) throw new Error(`${what} must be a non-negative decimal string (e.g. "12.50"), got "${text}"`);
  return BigInt(m[1]) * ONE + BigInt((m[2] ?? '').padEnd(SCALE, '0'));
}

/** "12.5" → "12.50": trailing zeros trimmed to at least two decimals, as the API formats money. */
export function formatDecimal(units: Units): string {
  const whole = units / ONE;
  const fraction = (units % ONE).toString().padStart(SCALE, '0').replace(/0+$/, '').padEnd(2, '0');
  return `${whole}.${fraction}`;
}
