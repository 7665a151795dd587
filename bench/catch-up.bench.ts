/**
 * Catch-up and live lag (issue 33 item 3), on PostgreSQL, over the generated history of large-history.ts:
 * 1. A projector (the runner the projector app builds, every read model) follows `CATCHUP_BASE` events live, is
 *    stopped while `CATCHUP_EVENTS` more are appended, and is started again: the catch-up rate is those events over
 *    the time to be caught up. Same-run baseline: the rebuild rate — every read model rebuilt blue/green over the
 *    whole history, history events / rebuild seconds, as `npm run bench -- rebuild` counts it. Goal: catch-up ≥ it.
 * 2. Live lag: with the projector following, appends at a steady pace (one generated append call every
 *    `LAG_EVERY_MS`); each call's lag per projection is the time from the append's return to that projection's
 *    checkpoint reaching the store's head (checkpoints move past filtered-out events too). Measured twice in this
 *    run: while nothing else runs (the baseline), then while the largest model (wallet_history) rebuilds, for the
 *    seven others. Goal: p99 < 1 s during the rebuild.
 *   npm run bench -- catch-up                        (50,000 + 100,000 events)
 *   CATCHUP_EVENTS=200000 npm run bench -- catch-up  (the 200,000)  → bench/results/catch-up.json
 *   CATCHUP_BASE=800000 CATCHUP_EVENTS=200000 npm run bench -- catch-up  (the 200,000 on top of a history that makes
 *   the rebuild bench's 1,000,000; the read models then hold what they hold at volume)  → bench/results/catch-up-at-volume.json
 */
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { createChainEventCatalog } from '@dob/domain';
import { comparePositions, createSqlEventStore, type EventStore, type StreamAppend } from '@dob/event-store';
import { DEFAULT_CATCH_UP_BATCH_SIZE, ProjectionRunner, createSqlReadModelStore, type ReadModelStore } from '@dob/projections';
import { READ_MODEL_REBUILD_GROUPS, readModelProjections } from '@dob/read-models';
import { createPostgresDatabase } from '@dob/sql';
import { TEST_POSTGRES_URL } from '../libs/sql/src/testing/test-databases';
import { LARGE_HISTORY, largeHistory } from '../libs/read-models/src/testing/large-history';
import { runWhenMain, startMachineRecord, writeBenchResult } from './bench-report';

const BASE = Number(process.env.CATCHUP_BASE ?? 50_000);
const BEHIND = Number(process.env.CATCHUP_EVENTS ?? 100_000);
const LAG_CALLS = Number(process.env.LAG_CALLS ?? 200);
const LAG_EVERY_MS = Number(process.env.LAG_EVERY_MS ?? 50);
const REBUILT = 'wallet_history';
const WAIT_MS = 30 * 60_000;
/**
 * A history of a million events or more is the volume: its catch-up is kept apart from the small base's,
 * because the two measure different paths (see docs/benchmarks-journal.md, "Catch-up at volume").
 */
const RESULTS = BASE + BEHIND >= 1_000_000 ? 'catch-up-at-volume' : 'catch-up';

/** The history's append calls one by one. */
function* appendCalls(events: number): Generator<StreamAppend[]> {
  for (const step of largeHistory({ ...LARGE_HISTORY, events })) yield* step;
}

/** Streams per paced append of the live parts: a generated call spans up to every pool; an agent's append is small. */
const LIVE_STREAMS_PER_APPEND = 10;

/** The same history continued in small appends (a call cut into pieces of a few streams, order kept). */
function* smallAppends(calls: Generator<StreamAppend[]>): Generator<StreamAppend[]> {
  for (const call of calls) {
    for (let i = 0; i < call.length; i += LIVE_STREAMS_PER_APPEND) yield call.slice(i, i + LIVE_STREAMS_PER_APPEND);
  }
}

async function appendEvents(store: EventStore, calls: Generator<StreamAppend[]>, events: number): Promise<number> {
  let n = 0;
  while (n < events) {
    const next = calls.next();
    if (next.done) break;
    await store.appendMany(next.value);
    for (const a of next.value) n += a.events.length;
  }
  return n;
}

const runnerFor = (events: EventStore, readModels: ReadModelStore) =>
  new ProjectionRunner(events, readModels, readModelProjections, {
    catchUpBatchSize: DEFAULT_CATCH_UP_BATCH_SIZE,
    // As the projector app composes it (libs/compositions); CATCHUP_UNSHARED=1: each model its own read of the backlog.
    ...(process.env.CATCHUP_UNSHARED ? {} : { catchUpGroups: READ_MODEL_REBUILD_GROUPS }),
    log: () => undefined,
  });

const percentile = (xs: readonly number[], p: number): number => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]! : NaN;
};
const summary = (ms: readonly number[]) => ({
  samples: ms.length,
  p50Ms: Math.round(percentile(ms, 50)),
  p99Ms: Math.round(percentile(ms, 99)),
  maxMs: Math.round(Math.max(...ms)),
});

/**
 * Appends `LAG_CALLS` calls at the pace, and per call and projection (other than `skip`) the ms until that
 * projection's checkpoint reached the head the call left.
 */
async function liveLag(
  events: EventStore,
  readModels: ReadModelStore,
  calls: Generator<StreamAppend[]>,
  during?: { skip: string; work: Promise<unknown> },
): Promise<number[]> {
  const skip = during?.skip;
  let working = !!during;
  void during?.work.finally(() => (working = false));
  const watched = readModelProjections.map((p) => p.name).filter((n) => n !== skip);
  const pending: { at: number; head: Awaited<ReturnType<EventStore['headPosition']>>; waiting: Set<string> }[] = [];
  const lags: number[] = [];
  let appending = true;
  const watcher = (async () => {
    while (appending || pending.length) {
      const states = await readModels.states();
      const now = performance.now();
      for (const p of pending) {
        for (const s of states) {
          if (s.active && p.waiting.has(s.slot.name) && comparePositions(s.position, p.head) >= 0) {
            p.waiting.delete(s.slot.name);
            lags.push(now - p.at);
          }
        }
      }
      pending.splice(0, pending.length, ...pending.filter((p) => p.waiting.size > 0));
      await new Promise((r) => setTimeout(r, 5));
    }
  })();
  // At least LAG_CALLS appends, and for as long as the work (a rebuild) lasts.
  for (let i = 0; i < LAG_CALLS || working; i++) {
    const next = calls.next();
    if (next.done) break;
    const started = performance.now();
    await events.appendMany(next.value);
    pending.push({ at: performance.now(), head: await events.headPosition(), waiting: new Set(watched) });
    await new Promise((r) => setTimeout(r, Math.max(0, LAG_EVERY_MS - (performance.now() - started))));
  }
  appending = false;
  await watcher;
  return lags;
}

function cpuSecondsSince(start: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(start);
  return +((used.user + used.system) / 1e6).toFixed(1);
}

export async function run(): Promise<object> {
  const machine = startMachineRecord();
  const schema = `bench_catchup_${randomBytes(4).toString('hex')}`;
  const db = await createPostgresDatabase({ connectionString: TEST_POSTGRES_URL, schema, maxConnections: 20 });
  const events = await createSqlEventStore(db, { catalog: createChainEventCatalog(), pollIntervalMs: 50 });
  const readModels = createSqlReadModelStore(db);
  // Enough history for every part; the live parts take what is left after base + behind, in small appends.
  const calls = appendCalls(BASE + BEHIND + LAG_CALLS * 2 * LIVE_STREAMS_PER_APPEND * 20);
  try {
    const base = await appendEvents(events, calls, BASE);
    let runner = runnerFor(events, readModels);
    await runner.start();
    await runner.waitUntilCaughtUp(WAIT_MS);
    await runner.stop();

    const behind = await appendEvents(events, calls, BEHIND);
    // Started again as a restarted projector is: its own read-model store, which knows nothing of the slots (the
    // store that created and activated them takes them for slots it switched, and never builds a backlog for them).
    runner = runnerFor(events, createSqlReadModelStore(db));
    let t = performance.now();
    let cpu = process.cpuUsage();
    await runner.start();
    await runner.waitUntilCaughtUp(WAIT_MS);
    const catchUpSeconds = (performance.now() - t) / 1000;
    const catchUpCpu = cpuSecondsSince(cpu);
    console.log(`catch-up: ${behind} events behind, ${catchUpSeconds.toFixed(1)} s, ${Math.round(behind / catchUpSeconds)} events/s`);

    const live = smallAppends(calls);
    const quiet = await liveLag(events, readModels, live);
    console.log(`live lag, nothing rebuilding: ${JSON.stringify(summary(quiet))}`);
    t = performance.now();
    const rebuilding = runner.rebuild(REBUILT);
    const duringRebuild = await liveLag(events, readModels, live, { skip: REBUILT, work: rebuilding });
    const rebuilt = await rebuilding;
    const rebuildOneSeconds = +((performance.now() - t) / 1000).toFixed(1);
    console.log(`live lag of the others while ${REBUILT} rebuilds: ${JSON.stringify(summary(duringRebuild))}`);
    await runner.stop();

    // Baseline: every read model rebuilt over the whole history now stored, as `ops projections rebuild --all` does
    // (one build at a time, each switch overlapping the next build, the group of four over one shared read).
    const history = base + behind;
    const rebuilder = runnerFor(events, createSqlReadModelStore(db)); // as the ops CLI's process has its own
    t = performance.now();
    cpu = process.cpuUsage();
    await rebuilder.rebuildAll(
      readModelProjections.map((d) => d.name),
      { groups: READ_MODEL_REBUILD_GROUPS },
    );
    const rebuildSeconds = (performance.now() - t) / 1000;
    const rebuildCpu = cpuSecondsSince(cpu);
    const stored = (await events.stats()).events;
    const rebuildRate = Math.round(stored / rebuildSeconds);
    const catchUpRate = Math.round(behind / catchUpSeconds);
    console.log(`rebuild of every read model over ${stored} events: ${rebuildSeconds.toFixed(1)} s, ${rebuildRate} events/s`);

    const result = {
      benchmark: 'catch-up',
      at: new Date().toISOString(),
      machine: machine('shared 2-core machine; event store and read models on the local PostgreSQL'),
      parameters: {
        history: { ...LARGE_HISTORY, base, behind, historyBeforeLagParts: history },
        liveLag: { appends: LAG_CALLS, everyMs: LAG_EVERY_MS, streamsPerAppend: LIVE_STREAMS_PER_APPEND, rebuilt: REBUILT },
        catchUpBatchSize: DEFAULT_CATCH_UP_BATCH_SIZE,
        baseline:
          'rebuild of every read model over the whole stored history as ops projections rebuild --all does, READ_MODEL_REBUILD_GROUPS over one read (history events / seconds)',
      },
      goals: { catchUpVsRebuild: 1, liveLagP99MsDuringRebuild: 1000 },
      results: {
        // This process's CPU (the projector's, and nothing else runs in it meanwhile): what each event cost here.
        catchUp: { events: behind, seconds: +catchUpSeconds.toFixed(2), eventsPerSecond: catchUpRate, cpuSeconds: catchUpCpu },
        rebuildBaseline: { events: stored, seconds: +rebuildSeconds.toFixed(2), eventsPerSecond: rebuildRate, cpuSeconds: rebuildCpu },
        catchUpVsRebuild: +(catchUpRate / rebuildRate).toFixed(2),
        liveLagQuiet: summary(quiet),
        liveLagDuringRebuild: { ...summary(duringRebuild), rebuilt: REBUILT, rebuildSeconds: rebuildOneSeconds, eventsApplied: rebuilt.eventsApplied },
      },
    };
    writeBenchResult(RESULTS, result);
    return result;
  } finally {
    await events.close();
    await db.exec(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch(() => undefined);
    await db.close();
  }
}

runWhenMain(module, run);
