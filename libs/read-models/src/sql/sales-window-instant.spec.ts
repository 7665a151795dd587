import { canonicalSalesInstant, salesBoundaries, SALES_WINDOWS } from './sales-window-instant';

const HOUR_US = 3_600_000_000n;
/** Which sales each window counts at instant t (µs): `sold_at > t − w`, as the market-stats query has it. */
const counted = (soldAtUs: bigint[], tUs: bigint) =>
  Object.values(SALES_WINDOWS).map((hours) => soldAtUs.filter((s) => s > tUs - BigInt(hours) * HOUR_US).join(','));

describe('canonicalSalesInstant', () => {
  const base = Date.UTC(2026, 10, 1);
  // Sales at odd microseconds (as PostgreSQL stores them), some sharing an instant.
  const soldAtUs = [0, 1, 1, 5, 30, 31, 200].map((h) => BigInt(base) * 1000n + BigInt(h) * HOUR_US + 123n);

  it('gives every instant the same counted sales as its canonical instant, across all windows', () => {
    const boundaries = salesBoundaries(soldAtUs);
    const instants: number[] = [base - 1, base];
    for (const b of boundaries) {
      const ms = Number(b / 1000n);
      instants.push(ms - 1, ms, ms + 1);
    }
    for (let h = 0; h < 24 * 40; h += 7) instants.push(base + h * 3_600_000 + 17);
    for (const ms of instants) {
      const canonical = canonicalSalesInstant(boundaries, new Date(ms));
      const canonicalUs = BigInt(Date.parse(canonical.slice(0, 23) + 'Z')) * 1000n + BigInt(canonical.slice(23, 26));
      expect(counted(soldAtUs, canonicalUs)).toEqual(counted(soldAtUs, BigInt(ms) * 1000n));
    }
  });

  it('shares one instant between the clock readings of one class, and moves at a boundary', () => {
    const boundaries = salesBoundaries(soldAtUs);
    const a = canonicalSalesInstant(boundaries, new Date(base + 40 * 3_600_000));
    expect(canonicalSalesInstant(boundaries, new Date(base + 40 * 3_600_000 + 999))).toBe(a);
    expect(canonicalSalesInstant(boundaries, new Date(base + 60 * 3_600_000))).not.toBe(a); // a sale at 31 h left the 24 h window
    expect(canonicalSalesInstant([], new Date(base))).toBe('1970-01-01T00:00:00.000000Z');
  });
});
