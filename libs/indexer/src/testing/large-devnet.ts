import { cpSync, existsSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDevnet, type RunningDevnet } from '@dob/devnet';

export interface LargeDevnet {
  readonly devnet: RunningDevnet;
  readonly dataDir: string;
  /** Seconds spent seeding in this call; null when a cached seeded chain was reused. */
  readonly seedSeconds: number | null;
  /** Stops the devnet and removes its (copied) data dir. */
  stop(): Promise<void>;
}

/**
 * A devnet with a large seeded history (the seeder's `events` target) for crash tests and benchmarks. Seeding
 * 100k events takes minutes on 2 cores, so the seeded chain is built once per (seed, events) into
 * `<tmpdir>/dob-seeded-devnet-<seed>-<events>` and every run starts a devnet on a fresh COPY of it (the devnet
 * appends ledgers while it runs, so the cached chain itself is never served).
 */
export async function startLargeDevnet(options: { events: number; seed?: number; ledgerIntervalMs?: number }): Promise<LargeDevnet> {
  const seed = options.seed ?? 7;
  const cache = join(tmpdir(), `dob-seeded-devnet-${seed}-${options.events}`);
  let seedSeconds: number | null = null;
  if (!existsSync(join(cache, 'devnet', 'pools.json'))) {
    const building = `${cache}.building-${process.pid}`;
    rmSync(building, { recursive: true, force: true });
    const started = Date.now();
    const seeding = await startDevnet({ port: 0, dataDir: building, seed, seedEvents: options.events, ledgerIntervalMs: 60_000 });
    await seeding.stop();
    seedSeconds = (Date.now() - started) / 1000;
    rmSync(cache, { recursive: true, force: true });
    renameSync(building, cache);
  }
  const dataDir = mkdtempSync(join(tmpdir(), 'dob-large-devnet-'));
  cpSync(cache, dataDir, { recursive: true });
  const devnet = await startDevnet({ port: 0, dataDir, seed, ledgerIntervalMs: options.ledgerIntervalMs ?? 1000 });
  return {
    devnet,
    dataDir,
    seedSeconds,
    async stop() {
      await devnet.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
