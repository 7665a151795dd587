/**
 * What `npm start`'s V8 flags buy and cost. The whole system (apps/all on embedded defaults: PGlite, the devnet's 1 s
 * ledgers, indexer, projections, notifier and API in one process) is started straight with `node <flags>` on one
 * seeded folder, once per variant and round (rounds interleave the variants: the machine is shared); each start gets
 * the paced mixed read load of mixed-load.bench.ts (1,000 req/s, 10 s warm-up unrecorded, then N s recorded). Recorded:
 * the load's latency, the node process's RSS and peak RSS (/proc) at the end, and V8's heap and GC figures (/metrics).
 * Baseline in the same run: V8's defaults. The whole npm process group's RSS over 10 minutes is the rss bench's job.
 *   node -r @swc-node/register bench/start-flags.bench.ts [seconds=60] [rounds=2]   → bench/results/start-flags.json
 *   (START_FLAGS_VARIANTS='--a --b;--c' adds sets of flags to compare)
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, ROOT, startProcess } from '../test/app-processes';
import { median, runWhenMain, startMachineRecord, writeBenchResult } from './bench-report';
import { mixedReadPaths, RATE } from './mixed-load.bench';
import { pacedLoad, type PacedLoadResult } from './paced-load';
import { healthy, seedSystem } from './seeded-system';
import { BENCH_METRICS_TOKEN, fetchMetricsText, gcTotals, metricMB } from './system-metrics';

/** The V8 flags of package.json's `start` script (between `node` and the loader), so the bench follows the script. */
export function npmStartFlags(startScript: string): string[] {
  const m = /node ((?:--[\w-]+(?:=\S+)? )*)-r \.\/scripts\/register\.js apps\/all\/src\/main\.ts/.exec(startScript);
  if (!m) throw new Error(`cannot find the node command of apps/all in the start script: ${startScript}`);
  return m[1]!.trim().split(' ').filter(Boolean);
}

interface Measurement {
  readonly round: number;
  readonly latencyMs: PacedLoadResult['latencyMs'];
  readonly non2xx: number;
  readonly errors: number;
  readonly slowSeconds: PacedLoadResult['slowSeconds'];
  readonly rssMB: number;
  readonly peakRssMB: number;
  readonly heapTotalMB: number;
  readonly oldSpaceUsedMB: number;
  /** GCs over the whole run (start, warm-up and load): count and total pause, by kind. */
  readonly gc: Record<string, { count: number; seconds: number }>;
}

const procStatusMB = (pid: number, field: 'VmRSS' | 'VmHWM') =>
  Math.round(Number(new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN) / 1024);

async function v8Figures(base: string): Promise<Pick<Measurement, 'heapTotalMB' | 'oldSpaceUsedMB' | 'gc'>> {
  const text = await fetchMetricsText(base);
  return {
    heapTotalMB: metricMB(text, 'nodejs_heap_size_total_bytes') ?? NaN,
    oldSpaceUsedMB: metricMB(text, 'nodejs_heap_space_size_used_bytes', 'space="old"') ?? NaN,
    gc: gcTotals(text),
  };
}

export async function run(seconds = Number(process.argv[2] ?? 60), rounds = Number(process.argv[3] ?? 2)): Promise<object> {
  const machine = startMachineRecord();
  const startScript = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start;
  const variants: { name: string; flags: string[] }[] = [
    { name: 'V8 defaults (baseline)', flags: [] },
    { name: 'npm start', flags: npmStartFlags(startScript) },
    { name: 'before: --optimize-for-size', flags: ['--max-semi-space-size=4', '--optimize-for-size', '--liftoff-only'] },
    { name: 'without a heap growing limit', flags: ['--max-semi-space-size=4', '--liftoff-only'] },
    // More sets to try, e.g. START_FLAGS_VARIANTS='--a --b;--c': each a variant of its own.
    ...(process.env.START_FLAGS_VARIANTS ?? '')
      .split(';')
      .map((set) => set.trim())
      .filter(Boolean)
      .map((set) => ({ name: set, flags: set.split(/\s+/) })),
  ];
  const dataDir = mkdtempSync(join(tmpdir(), 'start-flags-bench-'));
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const env = { DATA_DIR: dataDir, PORT: String(port), DEVNET_PORT: String(await freePort()), LOG_LEVEL: 'warn', METRICS_TOKEN: BENCH_METRICS_TOKEN };
  const results = variants.map((v) => ({ ...v, rounds: [] as Measurement[] }));
  try {
    const { key } = await seedSystem({ base, env, label: 'start-flags-bench' });
    let paths: string[] | undefined;
    for (let round = 1; round <= rounds; round++) {
      for (const variant of results) {
        const app = startProcess(`apps/all ${variant.name}`, process.execPath, [...variant.flags, '-r', './scripts/register.js', 'apps/all/src/main.ts'], env);
        try {
          await healthy(base, app, `${variant.name} ready`);
          if (!paths) {
            const pools = (await (await fetch(`${base}/api/agent/pools?limit=1`, { headers: { 'x-api-key': key } })).json()) as { data: { address: string }[] };
            if (!pools.data[0]) throw new Error('the seeded devnet has no pool');
            paths = mixedReadPaths(pools.data[0].address);
          }
          const load = await pacedLoad({ base, paths, headers: { 'x-api-key': key }, rate: RATE, seconds, connections: 20, warmupSeconds: 10 });
          variant.rounds.push({
            round,
            latencyMs: load.latencyMs,
            non2xx: load.non2xx,
            errors: load.errors,
            slowSeconds: load.slowSeconds.slice(0, 3),
            rssMB: procStatusMB(app.child.pid!, 'VmRSS'),
            peakRssMB: procStatusMB(app.child.pid!, 'VmHWM'),
            ...(await v8Figures(base)),
          });
          console.error(`round ${round} ${variant.name}: p99 ${load.latencyMs.p99} ms, RSS ${variant.rounds.at(-1)!.rssMB} MB`);
        } finally {
          await app.stop(30_000, 'SIGINT');
        }
      }
    }
    const p99Of = (v: (typeof results)[number]) => median(v.rounds.map((r) => r.latencyMs.p99));
    const rssOf = (v: (typeof results)[number]) => median(v.rounds.map((r) => r.rssMB));
    const [baseP99, baseRss] = [p99Of(results[0]!), rssOf(results[0]!)];
    const summary = results.map((v) => ({
      variant: v.name,
      flags: v.flags.join(' '),
      medianP99Ms: +p99Of(v).toFixed(2),
      medianP99_9Ms: +median(v.rounds.map((r) => r.latencyMs.p99_9)).toFixed(2),
      medianRssMB: rssOf(v),
      maxPeakRssMB: Math.max(...v.rounds.map((r) => r.peakRssMB)),
      p99AgainstBaseline: +(p99Of(v) / baseP99).toFixed(2),
      rssAgainstBaseline: +(rssOf(v) / baseRss).toFixed(2),
    }));
    const result = {
      benchmark: 'start-flags',
      at: new Date().toISOString(),
      machine: machine('apps/all started straight with node and each set of flags; the paced load in a child process of this one'),
      parameters: { seconds, warmupSeconds: 10, rounds, rate: RATE, mix: paths, startScript },
      summary,
      variants: results,
    };
    writeBenchResult('start-flags', result);
    return result;
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

runWhenMain(module, () => run());
