import { median } from './bench-report';

/**
 * A measurement and its baseline taken `rounds` times each, alternating which goes first. The headline is best of
 * each (highest rate): on these shared 2-core VMs interference only ever slows a run — the raw Fastify baseline
 * moved 17k-30k req/s between consecutive 5-second runs of the same handler — so the fastest run is the one
 * nearest the code's own cost (the reasoning of Python's `timeit` docs: "the min is the most accurate, since
 * higher values are caused by other processes interfering"). Every round is kept for the reader.
 */
export interface PairedRounds<T> {
  /** Every round: the measurement, its baseline, and measurement / baseline. */
  readonly rounds: { readonly measured: T; readonly baseline: T; readonly ratio: number }[];
  /** The fastest measured run, the fastest baseline run, and their ratio. */
  readonly best: { readonly measured: T; readonly baseline: T; readonly ratio: number };
  /** The median of the rounds' ratios (each a pair measured next to each other). */
  readonly medianRatio: number;
}

export async function pairedRounds<T>(
  rounds: number,
  measure: () => Promise<T>,
  baseline: () => Promise<T>,
  rate: (run: T) => number,
): Promise<PairedRounds<T>> {
  const all: PairedRounds<T>['rounds'][number][] = [];
  for (let round = 0; round < rounds; round++) {
    // Even rounds run the baseline first and odd rounds the measurement, so with an odd count the last run is a
    // measurement (a CPU profile's tail then shows the measured path).
    const baselineFirst = round % 2 === 0;
    const first = await (baselineFirst ? baseline() : measure());
    const second = await (baselineFirst ? measure() : baseline());
    const [m, b] = baselineFirst ? [second, first] : [first, second];
    all.push({ measured: m, baseline: b, ratio: +(rate(m) / rate(b)).toFixed(3) });
  }
  const fastest = (pick: (r: (typeof all)[number]) => T) => all.map(pick).reduce((a, b) => (rate(b) > rate(a) ? b : a));
  const measured = fastest((r) => r.measured);
  const base = fastest((r) => r.baseline);
  return {
    rounds: all,
    best: { measured, baseline: base, ratio: +(rate(measured) / rate(base)).toFixed(3) },
    medianRatio: median(all.map((r) => r.ratio)),
  };
}
