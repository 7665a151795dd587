/**
 * Rebuild at volume (issue 33): every read model rebuilt blue/green over a generated history on PostgreSQL, against
 * a same-run baseline — a raw COPY of the very rows the rebuild produced into fresh tables with the same columns,
 * keys and indexes. The history (large-history.ts: seed 33, 3,000 pools, 50,000 wallets, every event kind the read
 * models handle) is written into a fresh schema; the rebuild runs in a child process (bench/rebuild-child.ts: the
 * ops CLI's runner) so its peak RSS is its own.
 *   npm run bench -- rebuild                       (100,000 events)
 *   REBUILD_EVENTS=1000000 npm run bench -- rebuild (the size)  → bench/results/rebuild.json
 *   REBUILD_STORE=mongodb …: the read models on MongoDB (FerretDB here; the events stay on PostgreSQL), against a
 *   raw insertMany of the same documents with the same indexes  → bench/results/rebuild-mongodb.json
 * Goals: ≥ 17,000 history events/s (1,000,000 in ≤ 60 s), raw COPY time / rebuild time ≥ 0.5, peak RSS < 1 GiB.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createChainEventCatalog } from '@dob/domain';
import { createSqlEventStore } from '@dob/event-store';
import { openMongoDatabase } from '@dob/mongo';
import { createMongoReadModelStore, createSqlReadModelStore, createTablesSql, parseFields, type ReadModelStore } from '@dob/projections';
import { createTestMongoDatabase, testMongoUrl } from '../libs/mongo/src/testing/test-mongo';
import { rawInsertMany } from './read-models.bench';
import { readModelProjections } from '@dob/read-models';
import { copyText, createPostgresDatabase, type CopyValue } from '@dob/sql';
import { TEST_POSTGRES_URL } from '../libs/sql/src/testing/test-databases';
import { LARGE_HISTORY, writeLargeHistory } from '../libs/read-models/src/testing/large-history';
import { runWhenMain, startMachineRecord, writeBenchResult } from './bench-report';

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

function rebuildInChild(schema: string, mongoUrl?: string): Promise<ChildResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...opsNodeFlags(), '-r', '@swc-node/register', join(__dirname, 'rebuild-child.ts')], {
      env: { ...process.env, DATABASE_URL: TEST_POSTGRES_URL, SCHEMA: schema, ...(mongoUrl ? { MONGODB_URL: mongoUrl } : {}) },
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
  const db = await createPostgresDatabase({ connectionString: TEST_POSTGRES_URL, schema });
  let seconds = 0;
  let rows = 0;
  try {
    for (const def of readModelProjections) {
      for (const [collection, spec] of Object.entries(def.collections)) {
        const docs = await store.documents(def, collection);
        const columns = parseFields(spec).map((f) => f.name);
        // The COPY text prepared before the clock starts, in statements of 100,000 rows (a string has a length limit).
        const texts: string[] = [];
        for (let i = 0; i < docs.length; i += 100_000) texts.push(copyText(docs.slice(i, i + 100_000).map((d) => columns.map((c) => d[c] as CopyValue))));
        const table = `raw_${def.name}_${collection}`;
        const t = performance.now();
        await db.transaction(async (tx) => {
          await tx.exec(createTablesSql({ [collection]: table }, { [collection]: spec }));
          for (const text of texts) await tx.copyIn(table, columns, text);
        });
        seconds += (performance.now() - t) / 1000;
        rows += docs.length;
      }
    }
  } finally {
    await db.close();
  }
  return { seconds: +seconds.toFixed(2), rows, rowsPerSecond: Math.round(rows / seconds) };
}

/** The MongoDB rebuild's documents inserted raw (insertMany, same encoding and indexes) into a fresh database. */
async function rawMongoInsert(rebuilt: { url: string; drop(): Promise<void> }): Promise<{ seconds: number; rows: number; rowsPerSecond: number }> {
  const source = await openMongoDatabase(rebuilt.url);
  const raw = await createTestMongoDatabase();
  try {
    const r = await rawInsertMany(createMongoReadModelStore(source, { retireGraceMs: 0 }), raw);
    return { seconds: r.seconds, rows: r.documents, rowsPerSecond: r.documentsPerSecond };
  } finally {
    await raw.close();
    await source.close();
    await rebuilt.drop();
  }
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

    const onMongo = process.env.REBUILD_STORE === 'mongodb' ? testMongoUrl() : undefined;
    const rebuild = await rebuildInChild(schema, onMongo?.url);
    const historyEventsPerSecond = Math.round(written.events / rebuild.seconds);
    console.log(`rebuild of every read model: ${rebuild.seconds} s, ${historyEventsPerSecond} history events/s, peak RSS ${rebuild.peakRssMiB} MiB`);
    const baseline = onMongo ? await rawMongoInsert(onMongo) : await rawCopy(createSqlReadModelStore(db), schema);
    console.log(`raw ${onMongo ? 'insertMany' : 'COPY'} of the same ${baseline.rows} ${onMongo ? 'documents' : 'rows'}: ${baseline.seconds} s`);

    const result = {
      benchmark: 'rebuild',
      at: new Date().toISOString(),
      machine: machine(
        onMongo
          ? 'shared 2-core machine; event store on the local PostgreSQL, read models and the baseline on FerretDB 1.24 (on the same PostgreSQL)'
          : 'shared 2-core machine; event store, read models and the baseline on the local PostgreSQL',
      ),
      parameters: {
        history: { ...history, written: written.events, appendCalls: written.appendCalls, generateSeconds },
        projections: readModelProjections.map((p) => p.name),
        catchUpBatchSize: rebuild.catchUpBatchSize,
        store: onMongo ? 'mongodb' : 'postgres',
        baseline: onMongo
          ? 'insertMany (1,000 a call, two calls at a time as the rebuild writes) of the rebuilt documents, same encoding, into fresh collections with the same indexes (load timed)'
          : 'COPY … FROM STDIN of the rebuilt rows into fresh tables with the same columns, primary keys and indexes (DDL + load timed)',
      },
      goals: onMongo
        ? { historyEventsPerSecond: 5_556, secondsPer1MEvents: 180, copyVsRebuild: 0.5, peakRssMiB: 1024 }
        : { historyEventsPerSecond: 17_000, secondsPer1MEvents: 60, copyVsRebuild: 0.5, peakRssMiB: 1024 },
      results: {
        rebuild: { ...rebuild, historyEventsPerSecond, applicationsPerSecond: Math.round(rebuild.applications / rebuild.seconds) },
        rawCopySameRows: baseline,
        // ≥ 0.5: the rebuild takes at most twice as long as loading its final rows raw.
        copyVsRebuild: +(baseline.seconds / rebuild.seconds).toFixed(3),
        secondsPer1MEventsProjected: +((rebuild.seconds * 1_000_000) / written.events).toFixed(1),
      },
    };
    writeBenchResult(onMongo ? 'rebuild-mongodb' : 'rebuild', result);
    return result;
  } finally {
    await db.exec(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch(() => undefined);
    await db.close();
  }
}

runWhenMain(module, run);
