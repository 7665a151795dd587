/**
 * Memory of the whole system as `npm start` runs it (apps/all on embedded defaults: PGlite, the seeded devnet, the
 * indexer, projections, notifier and API in one Node process), after seeding and then under the fixed-rate mixed
 * read load of mixed-load.bench.ts (1,000 req/s, paced: bench/paced-load.ts) for N minutes (default 10). RSS of every
 * process of the npm start process group (npm, sh, node) is sampled every 5 s from /proc, with the API's own /metrics
 * heap figures.
 * Goal: < 400 MB.
 *
 * The system is started once to seed, a key registered and its tier raised (bench/seeded-system.ts), then started
 * again on the same folder (it resumes from its checkpoints) for the load.
 *   node -r @swc-node/register bench/rss.bench.ts [minutes=10]   (or RSS_LOAD_MINUTES)   → bench/results/rss.json
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, ROOT, startApp, type AppProcess } from '../test/app-processes';
import { mixedReadPaths, RATE } from './mixed-load.bench';
import { pacedLoad } from './paced-load';
import { runWhenMain, startMachineRecord, writeBenchResult } from './bench-report';
import { healthy, seedSystem } from './seeded-system';
import { BENCH_METRICS_TOKEN, fetchMetricsText, metricMB } from './system-metrics';

const MB = 2 ** 20;
const SAMPLE_MS = 5_000;

interface Sample {
  readonly atS: number;
  readonly phase: string;
  readonly rssMB: number;
  readonly largestProcessRssMB: number;
  readonly heapTotalMB?: number;
  readonly heapUsedMB?: number;
  /** ArrayBuffers and other memory V8 tracks outside its heap (PGlite's WebAssembly memory among them). */
  readonly externalMB?: number;
}

/** RSS (bytes) of every live process in process group `pgid`, from /proc/<pid>/stat (pgrp) and statm (resident pages). */
function groupRss(pgid: number): { total: number; largest: number } {
  const page = 4096;
  let total = 0;
  let largest = 0;
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[2]) !== pgid) continue; // fields after "(comm)": state, ppid, pgrp, …
      const rss = Number(readFileSync(`/proc/${pid}/statm`, 'utf8').split(' ')[1]) * page;
      total += rss;
      largest = Math.max(largest, rss);
    } catch {
      // the process ended between readdir and read
    }
  }
  return { total, largest };
}

async function metricsMB(base: string): Promise<Pick<Sample, 'heapTotalMB' | 'heapUsedMB' | 'externalMB'>> {
  const text = await fetchMetricsText(base);
  return {
    heapTotalMB: metricMB(text, 'nodejs_heap_size_total_bytes'),
    heapUsedMB: metricMB(text, 'nodejs_heap_size_used_bytes'),
    externalMB: metricMB(text, 'nodejs_external_memory_bytes'),
  };
}

export async function run(minutes = Number(process.argv[2] ?? process.env.RSS_LOAD_MINUTES ?? 10)): Promise<object> {
  const machine = startMachineRecord();
  const dataDir = mkdtempSync(join(tmpdir(), 'rss-bench-'));
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const env = { DATA_DIR: dataDir, PORT: String(port), DEVNET_PORT: String(await freePort()), LOG_LEVEL: 'warn', METRICS_TOKEN: BENCH_METRICS_TOKEN };
  const samples: Sample[] = [];
  const started = Date.now();
  let app: AppProcess | undefined;
  try {
    // 1. First start: the devnet seeds an empty chain; the indexer and projections catch up. 2. The key's tier raised.
    let seededRss = { total: 0, largest: 0 };
    const { key, firstStartHealthyMs } = await seedSystem({ base, env, label: 'rss-bench', whileSeeded: (a) => (seededRss = groupRss(a.child.pid!)) });
    const t0 = Date.now();
    app = startApp('start', env);
    await healthy(base, app, 'npm start (restart) ready');
    const restartHealthyMs = Date.now() - t0;
    const pools = (await (await fetch(`${base}/api/agent/pools?limit=1`, { headers: { 'x-api-key': key } })).json()) as { data: { address: string }[] };
    const pool = pools.data[0]?.address;
    if (!pool) throw new Error('the seeded devnet has no pool');
    const paths = mixedReadPaths(pool);
    for (const p of paths) {
      const r = await fetch(base + p, { headers: { 'x-api-key': key } });
      if (r.status !== 200) throw new Error(`${p} answered ${r.status}: ${await r.text()}`);
    }
    // 3. Sample while idle after the restart, then under the load.
    let phase = 'idle after restart';
    const pgid = app.child.pid!;
    const sample = async () => {
      const rss = groupRss(pgid);
      const m = await metricsMB(base).catch(() => ({}));
      samples.push({
        atS: Math.round((Date.now() - started) / 1000),
        phase,
        rssMB: +(rss.total / MB).toFixed(1),
        largestProcessRssMB: +(rss.largest / MB).toFixed(1),
        ...m,
      });
    };
    await sample();
    await new Promise((r) => setTimeout(r, 10_000));
    await sample();
    phase = 'load';
    const timer = setInterval(() => void sample(), SAMPLE_MS);
    // Paced (a request due every ms, latency from its due time; bench/paced-load.ts), as the mixed-load goal is judged.
    const load = await pacedLoad({ base, paths, headers: { 'x-api-key': key }, rate: RATE, seconds: Math.round(minutes * 60), connections: 20 }).finally(() =>
      clearInterval(timer),
    );
    phase = 'after load';
    await sample();
    const rssValues = samples.map((s) => s.rssMB);
    const result = {
      benchmark: 'rss',
      at: new Date().toISOString(),
      machine: machine('the system is `npm start` in its own processes; the paced load in a child process of this one'),
      parameters: { loadMinutes: minutes, sampleEverySeconds: SAMPLE_MS / 1000, mix: paths },
      goalMB: 400,
      startScript: JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).scripts.start,
      healthyAfterMs: { firstStart: firstStartHealthyMs, restart: restartHealthyMs },
      afterSeedingMB: +(seededRss.total / MB).toFixed(1),
      rssMB: { start: rssValues[0], peak: Math.max(...rssValues), end: rssValues[rssValues.length - 1] },
      load,
      samples,
    };
    writeBenchResult('rss', result);
    return result;
  } finally {
    await app?.stop(30_000, 'SIGINT');
    rmSync(dataDir, { recursive: true, force: true });
  }
}

runWhenMain(module, () => run());
