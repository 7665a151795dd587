/**
 * Indexer backfill throughput: a devnet with a large seeded history (served over HTTP from this process), the
 * indexer as a child process (libs/indexer/src/testing/indexer-child.ts: getEvents → decode → appendMany with the
 * cursor) backfilling it from ledger 1 until live, on PGlite and on PostgreSQL. Beside each, in the same run and on
 * the same engine, the baseline: the very rows the indexer appended (same count, jsonb payloads) written with a plain
 * batched INSERT into a table without constraints — what RPC paging, decoding, validation, idempotency and the
 * cursor's optimistic concurrency cost on top of raw SQL. After a warm-up backfill, INDEXER_ROUNDS (default 3)
 * backfills and raw inserts alternate, each into a fresh database: one run of either moved by a quarter between
 * runs on one machine, so the result is the best of each and the median of the rounds' ratios.
 *   node -r @swc-node/register bench/indexer.bench.ts [events]   → bench/results/indexer.json
 * BENCH_STORES=postgres (or pglite) runs one engine only; INDEXER_CPU_PROF_DIR=<dir> writes the indexer child's
 * V8 CPU profile there (`node --cpu-prof`; summarise with `node bench/cpu-profile-top.ts <file>`).
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { createChainEventCatalog, indexerStreamId } from '@dob/domain';
import { createSqlEventStore, type RecordedEvent } from '@dob/event-store';
import { createPgliteDatabase, createPostgresDatabase, type SqlDatabase } from '@dob/sql';
import { TEST_POSTGRES_URL } from '../libs/sql/src/testing/test-databases';
import { startLargeDevnet, type LargeDevnet } from '../libs/indexer/src/testing/large-devnet';
import { runWhenMain, startMachineRecord, writeBenchResult } from './bench-report';
import { pairedRounds } from './paired-rounds';

const BATCH = 10_000; // the ingestor's maxEventsPerAppend
/** Backfills and raw inserts measured ROUNDS times each per engine, alternating, after one warm-up backfill. */
const ROUNDS = Number(process.env.INDEXER_ROUNDS ?? 3);
const CHILD = path.join(__dirname, '../libs/indexer/src/testing/indexer-child.ts');

/** What the indexer's cursors say a backfill read and wrote. */
interface BackfillCounts {
  chainEvents: number;
  domainEvents: number;
  windows: number;
}

/** Runs the indexer child until live; the clock starts when it has loaded its cursor (process start excluded). */
async function backfill(large: LargeDevnet, env: Record<string, string>): Promise<number> {
  const prof = process.env.INDEXER_CPU_PROF_DIR ? ['--cpu-prof', '--cpu-prof-dir', process.env.INDEXER_CPU_PROF_DIR] : [];
  const proc = spawn(process.execPath, [...prof, '-r', '@swc-node/register', CHILD], {
    env: { ...process.env, NODE_OPTIONS: '', RPC_URL: large.devnet.rpcUrl, START_LEDGER: '1', EXIT_WHEN_LIVE: '1', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let started = 0;
  let live = 0;
  proc.stdout.on('data', (b: Buffer) => {
    for (const line of b.toString().split('\n')) {
      if (!started && line.includes('"nextLedger":1,')) started = performance.now();
      if (!live && line.includes('"state":"live"')) live = performance.now();
      if (line.includes('halted')) console.error(line);
    }
  });
  const code = await new Promise<number | null>((resolve) => proc.on('exit', resolve));
  if (code !== 0 || !started || !live) throw new Error(`indexer child failed (exit ${code})`);
  return (live - started) / 1000;
}

async function readAll(db: SqlDatabase): Promise<{ events: RecordedEvent[]; backfill: BackfillCounts }> {
  const store = await createSqlEventStore(db, { catalog: createChainEventCatalog() });
  const events: RecordedEvent[] = [];
  let after;
  for (;;) {
    const page = await store.readAll({ after, maxCount: 10_000 });
    events.push(...page.events);
    after = page.last;
    if (!page.hasMore) break;
  }
  const cursors = (await store.readStream(indexerStreamId(9))).filter((e) => e.type === 'IngestionCursorAdvanced');
  await store.close();
  return {
    events,
    backfill: {
      chainEvents: cursors.reduce((n, e) => n + (e.data as { chain_events: number }).chain_events, 0),
      domainEvents: cursors.reduce((n, e) => n + (e.data as { domain_events: number }).domain_events, 0),
      windows: cursors.length,
    },
  };
}

/** The same rows in a plain table, batches of BATCH through one jsonb parameter (INSERT ... SELECT). */
async function rawInsert(db: SqlDatabase, rows: readonly object[]): Promise<number> {
  await db.exec(`CREATE TABLE raw_indexed_events (
    position bigserial PRIMARY KEY, stream_id text NOT NULL, revision bigint NOT NULL, event_id uuid NOT NULL,
    type text NOT NULL, version integer NOT NULL, data jsonb NOT NULL, metadata jsonb NOT NULL,
    recorded_at timestamptz NOT NULL DEFAULT now())`);
  const t0 = performance.now();
  for (let i = 0; i < rows.length; i += BATCH) {
    await db.query(
      `INSERT INTO raw_indexed_events (stream_id, revision, event_id, type, version, data, metadata)
       SELECT e.s, e.r, e.id, e.type, e.version, e.data, e.metadata
       FROM jsonb_to_recordset($1::jsonb) AS e(s text, r bigint, id uuid, type text, version integer, data jsonb, metadata jsonb)`,
      [JSON.stringify(rows.slice(i, i + BATCH))],
    );
  }
  return (performance.now() - t0) / 1000;
}

const asRawRows = (events: readonly RecordedEvent[]) =>
  events.map((e) => ({ s: e.streamId, r: e.revision, id: e.id, type: e.type, version: e.version, data: e.data, metadata: e.metadata }));

/** A fresh database per run, on one engine: the indexer child backfills into it, or the baseline inserts into it. */
interface Engine {
  /** Runs `use` on a fresh database; `childEnv` points the indexer child at it (the parent closes its own handle first). */
  fresh<T>(use: (db: () => Promise<SqlDatabase>, childEnv: Record<string, string>) => Promise<T>): Promise<T>;
}

const pgliteEngine: Engine = {
  async fresh(use) {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-indexer-pglite-'));
    let db: SqlDatabase | undefined;
    try {
      // PGlite: the child writes into the data dir, the parent opens it only afterwards (one process at a time).
      return await use(async () => (db ??= await createPgliteDatabase({ dataDir: dir })), { PGLITE_DIR: dir });
    } finally {
      await db?.close();
      rmSync(dir, { recursive: true, force: true });
    }
  },
};

const postgresEngine: Engine = {
  async fresh(use) {
    const schema = `bench_idx_${randomBytes(4).toString('hex')}`;
    const db = await createPostgresDatabase({ connectionString: TEST_POSTGRES_URL, schema });
    try {
      return await use(async () => db, { PG_URL: TEST_POSTGRES_URL, PG_SCHEMA: schema });
    } finally {
      await db.exec(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch(() => undefined);
      await db.close();
    }
  },
};

/** One timed run, a backfill (with its counts) or a raw insert: `stored` rows in `seconds`. */
interface Run {
  seconds: number;
  stored: number;
  counts?: BackfillCounts;
}

/**
 * One engine: a warm-up backfill (not counted: the devnet's page serving runs cold in it, 4.4 s against 3.2 s for
 * the runs after on the same machine) whose stored rows become the baseline's, then ROUNDS backfills and ROUNDS
 * raw inserts alternated (bench/paired-rounds.ts), each into a fresh database.
 */
async function measureEngine(large: LargeDevnet, engine: Engine) {
  const backfillOnce = () =>
    engine.fresh(async (open, env) => {
      const seconds = await backfill(large, env);
      const { events, backfill: b } = await readAll(await open());
      const run: Run = { seconds, stored: events.length, counts: b };
      return { run, events };
    });
  const warmUp = await backfillOnce();
  const rows = asRawRows(warmUp.events);
  const paired = await pairedRounds(
    ROUNDS,
    async () => (await backfillOnce()).run,
    () => engine.fresh(async (open): Promise<Run> => ({ seconds: await rawInsert(await open(), rows), stored: rows.length })),
    (r) => r.stored / r.seconds,
  );
  const indexer = (b: Run, counts = b.counts!) => ({
    seconds: +b.seconds.toFixed(2),
    ...counts,
    storedEvents: b.stored,
    chainEventsPerSecond: Math.round(counts.chainEvents / b.seconds),
    appendedEventsPerSecond: Math.round(b.stored / b.seconds),
  });
  const raw = (b: Run) => ({ seconds: +b.seconds.toFixed(2), rows: b.stored, rowsPerSecond: Math.round(b.stored / b.seconds) });
  return {
    indexer: {
      ...indexer(paired.best.measured),
      how: 'indexer child from ledger 1 to live: getEvents pages of 10,000 over HTTP, decode, appendMany per window with the cursor; fastest of the rounds',
    },
    rawInsert: {
      ...raw(paired.best.baseline),
      how: `the same ${rows.length} rows (jsonb data + metadata), INSERT ... SELECT FROM jsonb_to_recordset, batches of ${BATCH}, plain table; fastest of the rounds`,
    },
    // indexer's rate / raw insert's rate: best of each, and the median of the rounds' ratios (each pair run back to back).
    indexerVsRawInsert: paired.best.ratio,
    medianRoundRatio: paired.medianRatio,
    rounds: paired.rounds.map((r) => ({ indexerSeconds: +r.measured.seconds.toFixed(2), rawSeconds: +r.baseline.seconds.toFixed(2), ratio: r.ratio })),
    warmUpSeconds: +warmUp.run.seconds.toFixed(2),
  };
}

export async function run(events = Number(process.argv[2] ?? 100_000)): Promise<object> {
  const machine = startMachineRecord();
  const large = await startLargeDevnet({ events, seed: 7 });
  const results: Record<string, object> = {};
  try {
    const stores = (process.env.BENCH_STORES ?? 'pglite,postgres').split(',');
    if (stores.includes('pglite')) results.pglite = await measureEngine(large, pgliteEngine);
    if (stores.includes('postgres')) results.postgres = await measureEngine(large, postgresEngine);
  } finally {
    await large.stop();
  }
  const result = {
    benchmark: 'indexer',
    at: new Date().toISOString(),
    machine: machine('shared 2-core machine; the devnet RPC runs in the benchmark process, the indexer in a child process'),
    parameters: {
      seededEvents: events,
      seed: 7,
      seededChainEvents: large.devnet.chain.history.eventCount,
      seededLedgers: large.devnet.chain.latestLedger().sequence,
      seedSecondsThisRun: large.seedSeconds,
      rounds: ROUNDS,
    },
    goals: { indexerVsRawInsert: 0.5 },
    ...results,
  };
  writeBenchResult('indexer', result);
  return result;
}

runWhenMain(module, run);
