import { spawnSync } from 'node:child_process';
import { readdirSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import os from 'node:os';

/**
 * `npm run bench [-- name ...]`: runs every bench/*.bench.ts (or the named ones) one after another, each in its own
 * Node 24 process so one benchmark's heap, sockets and timers never colour the next. Each benchmark writes its own
 * JSON to bench/results/ (machine, parameters, its baseline measured in the same run); this runner adds
 * bench/results/summary.json with what ran, how long it took and whether it succeeded. docs/benchmarks.md
 * summarises the numbers.
 */
const dir = __dirname;
const wanted = process.argv.slice(2);
const benches = readdirSync(dir)
  .filter((f) => f.endsWith('.bench.ts'))
  .map((f) => f.replace(/\.bench\.ts$/, ''))
  .filter((name) => wanted.length === 0 || wanted.includes(name))
  .sort();

if (wanted.length && benches.length !== wanted.length) {
  console.error(`unknown benchmark(s): ${wanted.filter((w) => !benches.includes(w)).join(', ')}`);
  process.exit(2);
}

const runs: { name: string; ok: boolean; seconds: number; exitCode: number | null }[] = [];
for (const name of benches) {
  console.log(`\n=== ${name} ===`);
  const started = Date.now();
  const r = spawnSync(process.execPath, ['--expose-gc', '-r', '@swc-node/register', join(dir, `${name}.bench.ts`)], {
    stdio: 'inherit',
    env: process.env,
  });
  runs.push({ name, ok: r.status === 0, seconds: Math.round((Date.now() - started) / 100) / 10, exitCode: r.status });
}

mkdirSync(join(dir, 'results'), { recursive: true });
writeFileSync(
  join(dir, 'results', 'summary.json'),
  JSON.stringify(
    {
      at: new Date().toISOString(),
      machine: { cpuModel: os.cpus()[0]?.model, cpus: os.cpus().length, totalMemoryGiB: Math.round(os.totalmem() / 2 ** 30), node: process.version },
      runs,
    },
    null,
    2,
  ) + '\n',
);
console.log('\n' + runs.map((r) => `${r.ok ? 'ok  ' : 'FAIL'} ${r.name} (${r.seconds} s)`).join('\n'));
process.exit(runs.every((r) => r.ok) ? 0 : 1);
