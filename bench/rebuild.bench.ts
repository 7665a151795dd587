/**
 * Rebuild at volume (issue 33): every read model rebuilt blue/green over a generated history on PostgreSQL, against
 * a same-run baseline — a raw COPY of the very rows the rebuild produced into fresh tables with the same columns,
 * keys and indexes. The history (large-history.ts: seed 33, 3,000 pools, 50,000 wallets, every event kind the read
 * models handle) is written into a fresh schema; the rebuild runs in a child process (bench/rebuild-child.ts: the
 * ops CLI's runner) so its peak RSS is its own.
 *   npm run bench -- rebuild                       (100,000 events)
 *   REBUILD_EVENTS=1000000 npm run bench -- rebuild (the size)  → bench/results/rebuild.json
 * Goals: ≥ 17,000 history events/s (1,000,000 in ≤ 60 s), raw COPY time / rebuild time ≥ 0.5, peak RSS < 1 GiB.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Client } from 'pg';
import { createChainEventCatalog } from '@dob/domain';
import { createSqlEventStore } from '@dob/event-store';
import { createSqlReadModelStore, createTablesSql, parseFields, type ReadModelStore } from '@dob/projections';
import { readModelProjections } from '@dob/read-models';
import { createPostgresDatabase } from '@dob/sql';
import { TEST_POSTGRES_URL } from '../libs/sql/src/testing/test-databases';
import { LARGE_HISTORY, writeLargeHistory } from '../libs/read-models/src/testing/large-history';
import { runWhenMain, startMachineRecord, writeBenchResult } from './bench-report';
import { copyChunks, copyIn } from './copy-in';

interface ChildResult {
  seconds: number;
  applications: number;
  cpuSeconds: number;
  peakRssMiB: number;
  catchUpBatchSize: number;
  perProjection: Record<string, { seconds: number; events: number }>;
}

/**
 * The V8 flags `npm run ops` runs with (package.json), so the child's RSS is what an operator's rebuild costs: the
 * heap cap keeps V8 from growing the heap to twice the slot caches' live documents before it collects.
 */
function opsNodeFlags(): string[] {
  const pkg = JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  return pkg.scripts.ops!.split(/\s+/).filter((arg) => arg.startsWith('--max-old-space-size='));
}

function rebuildInChild(schema: string): Promise<ChildResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...opsNodeFlags(), '-r', '@swc-node/register', join(__dirname, 'rebuild-child.ts')], {
      env: { ...process.env, DATABASE_URL: TEST_POSTGRES_URL, SCHEMA: schema },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code !== 0) return reject(new Error(`rebuild child exited with ${code}`));
      resolve(JSON.parse(out.trim().split('\n').at(-1)!) as ChildResult);
    });
  });
}

/** Every collection's rows as the rebuild left them, COPYed into fresh tables with the same DDL; load time only. */
async function rawCopy(store: ReadModelStore, schema: string): Promise<{ seconds: number; rows: number; rowsPerSecond: number }> {
  const client = new Client({ connectionString: TEST_POSTGRES_URL });
  await client.connect();
  let seconds = 0;
  let rows = 0;
  try {
    await client.query(`SET search_path TO ${schema}`);
    for (const def of readModelProjections) {
      for (const [collection, spec] of Object.entries(def.collections)) {
        const docs = await store.documents(def, collection);
        const columns = parseFields(spec).map((f) => f.name);
        const chunks = copyChunks(docs.map((d) => columns.map((c) => d[c]!)));
        const table = `raw_${def.name}_${collection}`;
        const t = performance.now();
        await client.query(createTablesSql({ [collection]: table }, { [collection]: spec }));
        await copyIn(client, table, columns, chunks);
        seconds += (performance.now() - t) / 1000;
        rows += docs.length;
      }
    }
  } finally {
    await client.end();
  }
  return { seconds: +seconds.toFixed(2), rows, rowsPerSecond: Math.round(rows / seconds) };
}

export async function run(events = Number(process.env.REBUILD_EVENTS ?? 100_000)): Promise<object> {
  const machine = startMachineRecord();
  const schema = `bench_rebuild_${randomBytes(4).toString('hex')}`;
  const db = await createPostgresDatabase({ connectionString: TEST_POSTGRES_URL, schema });
  try {
    const store = await createSqlEventStore(db, { catalog: createChainEventCatalog() });
    const history = { ...LARGE_HISTORY, events };
    const t = performance.now();
    const written = await writeLargeHistory(store, history);
    const generateSeconds = +((performance.now() - t) / 1000).toFixed(1);
    await store.close();
    console.log(`history: ${written.events} events in ${generateSeconds} s`);

    const rebuild = await rebuildInChild(schema);
    const historyEventsPerSecond = Math.round(written.events / rebuild.seconds);
    console.log(`rebuild of every read model: ${rebuild.seconds} s, ${historyEventsPerSecond} history events/s, peak RSS ${rebuild.peakRssMiB} MiB`);
    const baseline = await rawCopy(createSqlReadModelStore(db), schema);
    console.log(`raw COPY of the same ${baseline.rows} rows: ${baseline.seconds} s`);

    const result = {
      benchmark: 'rebuild',
      at: new Date().toISOString(),
      machine: machine('shared 2-core machine; event store, read models and the baseline on the local PostgreSQL'),
      parameters: {
        history: { ...history, written: written.events, appendCalls: written.appendCalls, generateSeconds },
        projections: readModelProjections.map((p) => p.name),
        catchUpBatchSize: rebuild.catchUpBatchSize,
        baseline: 'COPY … FROM STDIN of the rebuilt rows into fresh tables with the same columns, primary keys and indexes (DDL + load timed)',
      },
      goals: { historyEventsPerSecond: 17_000, secondsPer1MEvents: 60, copyVsRebuild: 0.5, peakRssMiB: 1024 },
      results: {
        rebuild: { ...rebuild, historyEventsPerSecond, applicationsPerSecond: Math.round(rebuild.applications / rebuild.seconds) },
        rawCopySameRows: baseline,
        // ≥ 0.5: the rebuild takes at most twice as long as loading its final rows raw.
        copyVsRebuild: +(baseline.seconds / rebuild.seconds).toFixed(3),
        secondsPer1MEventsProjected: +((rebuild.seconds * 1_000_000) / written.events).toFixed(1),
      },
    };
    writeBenchResult('rebuild', result);
    return result;
  } finally {
    await db.exec(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch(() => undefined);
    await db.close();
  }
}

runWhenMain(module, run);
