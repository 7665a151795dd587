import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface MachineRecord {
  readonly cpuModel: string;
  readonly cpuCount: number;
  readonly totalMemoryGiB: number;
  readonly platform: string;
  readonly node: string;
  /** The machine is shared: how busy it was tells a slow run from a slow component. */
  readonly loadAverage1m5m15m: { readonly before: number[]; readonly after: number[] };
  readonly note?: string;
}

const loadAverage = () => os.loadavg().map((l) => +l.toFixed(2));

/** Call when the benchmark starts; the returned function describes the machine (load before and after) at the end. */
export function startMachineRecord(): (note?: string) => MachineRecord {
  const before = loadAverage();
  return (note) => {
    const cpus = os.cpus();
    return {
      cpuModel: cpus[0]?.model ?? 'unknown',
      cpuCount: cpus.length,
      totalMemoryGiB: +(os.totalmem() / 2 ** 30).toFixed(1),
      platform: `${os.platform()} ${os.release()}`,
      node: process.version,
      loadAverage1m5m15m: { before, after: loadAverage() },
      ...(note ? { note } : {}),
    };
  };
}

/** Writes bench/results/<name>.json (pretty, newline-terminated) and returns its path. */
export function writeBenchResult(name: string, result: object): string {
  const out = path.join(__dirname, 'results', `${name}.json`);
  mkdirSync(path.dirname(out), { recursive: true });
  writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);
  return out;
}

/** The middle value (the mean of the two middle ones for an even count). */
export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** Lets each benchmark run alone (`node -r @swc-node/register bench/<name>.bench.ts`) as well as from bench/run.ts. */
export function runWhenMain(mod: NodeModule, run: () => Promise<unknown>): void {
  if (require.main !== mod) return;
  run().then(
    (result) => console.log(JSON.stringify(result, null, 2)),
    (e: unknown) => {
      console.error(e);
      process.exitCode = 1;
    },
  );
}
