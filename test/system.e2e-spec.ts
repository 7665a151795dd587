import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataDirLockedError } from '@dob/runtime';
import { startSystem, type RunningSystem } from '../apps/all/src/system';

/** Issue 2 acceptance through the all-in-one root: ready /health, clean stop, resume without re-processing, lock. */
describe('the whole system on embedded defaults', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'system-'));
  let system: RunningSystem | undefined;

  afterAll(async () => {
    await system?.stop();
  });

  async function waitReady(url: string, timeoutMs: number): Promise<{ status: number; body: any; afterMs: number }> {
    const started = Date.now();
    for (;;) {
      const r = await fetch(url).catch(() => undefined);
      if (r?.status === 200) return { status: 200, body: await r.json(), afterMs: Date.now() - started };
      if (Date.now() - started > timeoutMs) return { status: r?.status ?? 0, body: await r?.json(), afterMs: Date.now() - started };
      await new Promise((res) => setTimeout(res, 500));
    }
  }

  const applied = (health: any) =>
    Object.fromEntries(Object.entries(health.components.projections.details).map(([name, p]: [string, any]) => [name, p.active.eventsApplied]));

  it('turns /health ready within 60 s, then resumes after a restart without re-processing', async () => {
    system = await startSystem({ dataDir, port: 0, devnetPort: 0, quiet: true, ledgerIntervalMs: 250 });
    const first = await waitReady(system.healthUrl, 60_000);
    expect(first.status).toBe(200);
    console.log(`system ready after ${first.afterMs} ms`);
    expect(first.body.components[`indexer_${system.networkId}`].details.state).toBe('live');
    const statsBefore = await system.eventStore.stats();
    expect(statsBefore.events).toBeGreaterThan(100);
    const appliedBefore = applied(first.body);
    await system.stop();
    system = undefined;

    system = await startSystem({ dataDir, port: 0, devnetPort: 0, quiet: true, ledgerIntervalMs: 250 });
    const second = await waitReady(system.healthUrl, 60_000);
    expect(second.status).toBe(200);
    const statsAfter = await system.eventStore.stats();
    // Each chain event is stored once: a restart re-reads nothing into the store (ids are deterministic anyway) …
    expect(statsAfter.byType).toEqual(
      expect.objectContaining(Object.fromEntries(Object.entries(statsBefore.byType).filter(([t]) => t !== 'IngestionCursorAdvanced'))),
    );
    // … and every projection continues from its checkpoint instead of applying its events again.
    const appliedAfter = applied(second.body);
    for (const [name, n] of Object.entries(appliedBefore)) expect(appliedAfter[name]).toBeGreaterThanOrEqual(n as number);
    const sameHead = statsAfter.events === statsBefore.events;
    if (sameHead) expect(appliedAfter).toEqual(appliedBefore);
  });

  it('refuses a second process on the same data folder with a clear message', async () => {
    await expect(startSystem({ dataDir, port: 0, devnetPort: 0, quiet: true })).rejects.toThrow(DataDirLockedError);
  });
});
