import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EMBEDDED_POSTGRESQL_CONF } from '@dob/sql';
import { runWhenMain, startMachineRecord, writeBenchResult } from './bench-report';

/**
 * What the embedded database costs in resident memory (issue 16's RSS goal for `npm start`): each variant is a fresh
 * Node process (plain `node`, no TypeScript loader) that opens PGlite on a fresh data folder, runs one query and
 * reports its RSS; the baseline is the same process without PGlite. Variants: PGlite's defaults (on a new folder, and
 * reopening an existing one, as every `npm start` after the first), a smaller shared_buffers (32 MB instead of 128 MB;
 * and the embedded settings, 16 MB, on a reopened folder), and V8 compiling the WebAssembly with its baseline compiler
 * only (`--liftoff-only`, no optimised second tier). Each variant runs three times; the median is reported.
 */
const ROUNDS = 3;

const script = (withPglite: boolean, conf: string[]) => `
const before = process.memoryUsage().rss;
(async () => {
  ${
    withPglite
      ? `const { PGlite } = require('@electric-sql/pglite');
  const db = await PGlite.create({ dataDir: process.argv[1], postgresqlconf: ${JSON.stringify(conf)} });
  await db.query('SELECT 1');`
      : ''
  }
  const m = process.memoryUsage();
  console.log(JSON.stringify({ rssBeforeMiB: before / 2 ** 20, rssMiB: m.rss / 2 ** 20, externalMiB: m.external / 2 ** 20, heapUsedMiB: m.heapUsed / 2 ** 20 }));
  process.exit(0);
})();`;

interface Sample {
  rssBeforeMiB: number;
  rssMiB: number;
  externalMiB: number;
  heapUsedMiB: number;
}

function measure(flags: string[], withPglite: boolean, conf: string[] = [], reopen = false): Sample {
  const samples: Sample[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const dir = mkdtempSync(join(tmpdir(), 'dob-pglite-mem-'));
    try {
      const once = () =>
        spawnSync(process.execPath, [...flags, '-e', script(withPglite, conf), join(dir, 'pglite')], { cwd: join(__dirname, '..'), encoding: 'utf8' });
      // reopen: the folder is created (initdb) by a first process, and the second one — a restart — is measured.
      const r = reopen ? (once(), once()) : once();
      if (r.status !== 0) throw new Error(`variant failed: ${r.stderr}`);
      samples.push(JSON.parse(r.stdout.trim().split('\n').pop()!) as Sample);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  const median = (k: keyof Sample) => Math.round([...samples].sort((a, b) => a[k] - b[k])[Math.floor(ROUNDS / 2)][k]);
  return { rssBeforeMiB: median('rssBeforeMiB'), rssMiB: median('rssMiB'), externalMiB: median('externalMiB'), heapUsedMiB: median('heapUsedMiB') };
}

export async function run() {
  const machine = startMachineRecord();
  const baseline = measure([], false);
  const variants = {
    pgliteDefaults: measure([], true),
    pgliteDefaultsReopened: measure([], true, [], true),
    sharedBuffers32MB: measure([], true, ['shared_buffers = 32MB']),
    // What the system now opens (libs/sql EMBEDDED_POSTGRESQL_CONF; initdb runs in a child process it does not keep).
    embeddedSettingsReopened: measure([], true, [...EMBEDDED_POSTGRESQL_CONF], true),
    liftoffOnly: measure(['--liftoff-only'], true),
  };
  const result = {
    benchmark: 'pglite-memory',
    rounds: ROUNDS,
    baseline: { what: 'the same Node process without PGlite', ...baseline },
    variants: Object.fromEntries(Object.entries(variants).map(([k, v]) => [k, { ...v, addedByPgliteMiB: v.rssMiB - baseline.rssMiB }])),
    machine: machine(),
  };
  writeBenchResult('pglite-memory', result);
  return result;
}

runWhenMain(module, run);
