import { canonicalStatusInstant, isoMicros } from './round-status-instant';

/** Microseconds since the epoch of an ISO string with up to six fractional digits. */
const micros = (iso: string): bigint => {
  const m = /^(.*T\d\d:\d\d:\d\d)(?:\.(\d{1,6}))?Z$/.exec(iso)!;
  return BigInt(Date.parse(`${m[1]}Z`)) * 1000n + BigInt((m[2] ?? '').padEnd(6, '0'));
};
/** ROUND_STATUS_SQL in TypeScript. */
const status = (r: { cf: bigint; ea: bigint | null }, at: bigint) => (r.cf > at ? 'pending' : r.ea !== null && r.ea < at ? 'expired' : 'completed');

/** mulberry32: the same rounds on every run. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('canonicalStatusInstant', () => {
  it('writes microseconds that ::timestamptz reads exactly', () => {
    expect(isoMicros(1_767_225_600_000_000n)).toBe('2026-01-01T00:00:00.000000Z');
    expect(isoMicros(1_767_225_600_123_457n)).toBe('2026-01-01T00:00:00.123457Z');
    expect(micros(isoMicros(1_767_225_600_123_457n))).toBe(1_767_225_600_123_457n);
  });

  it('gives every round the status it has at now, at, between, before and after boundaries', () => {
    const rand = prng(7);
    const base = 1_767_225_600_000_000n;
    for (let world = 0; world < 200; world++) {
      const rounds = Array.from({ length: 1 + Math.floor(rand() * 6) }, () => {
        // Whole seconds mostly (ledger and contract times), sometimes odd microseconds.
        const cf = base + BigInt(Math.floor(rand() * 20)) * 1_000_000n + (rand() < 0.2 ? BigInt(Math.floor(rand() * 999_999)) : 0n);
        const ea = rand() < 0.3 ? null : cf + BigInt(Math.floor(rand() * 10)) * 1_000_000n;
        return { cf, ea };
      });
      const boundaries = [...new Set(rounds.flatMap((r) => (r.ea === null ? [r.cf] : [r.cf, r.ea])))].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      const instants = [
        ...boundaries.flatMap((b) => [b - 1000n, b, b + 1000n]).map((us) => us - (us % 1000n)),
        ...Array.from({ length: 20 }, () => base - 5_000_000n + BigInt(Math.floor(rand() * 40_000)) * 1000n),
      ];
      for (const t of instants) {
        const now = new Date(Number(t / 1000n));
        const at = micros(canonicalStatusInstant(boundaries, now));
        for (const r of rounds) expect([world, status(r, at)]).toEqual([world, status(r, BigInt(now.getTime()) * 1000n)]);
      }
    }
  });

  it('maps every instant of one interval between boundaries to one value (what lets the cache hit)', () => {
    const b = [1_767_225_600_000_000n, 1_767_225_660_000_000n];
    const inside = [1_767_225_600_001, 1_767_225_630_000, 1_767_225_659_999].map((ms) => canonicalStatusInstant(b, new Date(ms)));
    expect(new Set(inside).size).toBe(1);
    expect(canonicalStatusInstant(b, new Date(1_767_225_600_000))).not.toBe(inside[0]); // the boundary is its own class
    expect(new Set([0, 1_000, 1_767_225_599_999].map((ms) => canonicalStatusInstant(b, new Date(ms)))).size).toBe(1);
    expect(canonicalStatusInstant([], new Date())).toBe(canonicalStatusInstant([], new Date(0)));
  });
});
