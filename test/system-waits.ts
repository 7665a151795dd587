import type { RunningSystem } from '../apps/all/src/system';

/** Polls `probe` until it returns something truthy, failing with `what` after `timeoutMs`. */
export async function eventually<T>(what: string, probe: () => Promise<T | undefined | null | false>, timeoutMs = 120_000, intervalMs = 100): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/** Settled = /health 200, the indexer live, and every projection caught up with the store's head, none rebuilding. */
export async function settled(system: RunningSystem, timeoutMs = 120_000): Promise<void> {
  await eventually(
    'the system to settle',
    async () => {
      const r = await fetch(system.healthUrl).catch(() => undefined);
      if (r?.status !== 200) return false;
      const h = (await r.json()) as { components: Record<string, { details?: { state?: string } }> };
      if (h.components[`indexer_${system.networkId}`]?.details?.state !== 'live') return false;
      const reports = await system.projections.status();
      return reports.every((p) => p.active && p.active.lag === 0 && !p.building);
    },
    timeoutMs,
  );
}
