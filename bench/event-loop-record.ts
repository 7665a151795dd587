import { monitorEventLoopDelay, PerformanceObserver, type PerformanceEntry } from 'node:perf_hooks';
import { constants } from 'node:perf_hooks';

/** What held this process's event loop during a measured run: garbage collections and the loop's delay. */
export interface EventLoopRecord {
  readonly gc: { readonly kind: string; readonly count: number; readonly totalMs: number; readonly maxMs: number }[];
  /** The event loop's delay sampled every 10 ms (perf_hooks.monitorEventLoopDelay), ms. */
  readonly loopDelayMs: { readonly p50: number; readonly p99: number; readonly max: number };
}

const GC_KINDS: Record<number, string> = {
  [constants.NODE_PERFORMANCE_GC_MINOR]: 'minor (scavenge)',
  [constants.NODE_PERFORMANCE_GC_MAJOR]: 'major (mark-compact)',
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental marking',
  [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weak callbacks',
};

/**
 * Starts recording; the returned function stops and summarises. A latency tail in a load benchmark is either the
 * server's work or its event loop being held: this tells the two apart.
 */
export function recordEventLoop(): () => EventLoopRecord {
  const gc = new Map<string, { count: number; totalMs: number; maxMs: number }>();
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries() as (PerformanceEntry & { detail?: { kind?: number } })[]) {
      const kind = GC_KINDS[entry.detail?.kind ?? -1] ?? 'other';
      const s = gc.get(kind) ?? { count: 0, totalMs: 0, maxMs: 0 };
      s.count++;
      s.totalMs += entry.duration;
      s.maxMs = Math.max(s.maxMs, entry.duration);
      gc.set(kind, s);
    }
  });
  observer.observe({ entryTypes: ['gc'] });
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  return () => {
    observer.disconnect();
    delay.disable();
    const ms = (ns: number) => +(ns / 1e6).toFixed(2);
    return {
      gc: [...gc].map(([kind, s]) => ({ kind, count: s.count, totalMs: +s.totalMs.toFixed(1), maxMs: +s.maxMs.toFixed(2) })),
      loopDelayMs: { p50: ms(delay.percentile(50)), p99: ms(delay.percentile(99)), max: ms(delay.max) },
    };
  };
}
