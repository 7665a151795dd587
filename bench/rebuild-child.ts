/**
 * The rebuilding process of bench/rebuild.bench.ts, run as its own process so its peak RSS is the rebuild's alone
 * (not the history generator's or the baseline's): rebuilds every read model blue/green with the runner the ops
 * CLI builds (`ops projections rebuild --all`: catch-up pages of DEFAULT_CATCH_UP_BATCH_SIZE, one build at a time,
 * each switch overlapping the next build), and prints one JSON line.
 *   DATABASE_URL=postgres://… SCHEMA=… node -r @swc-node/register bench/rebuild-child.ts
 * With MONGODB_URL (a database of its own), the read models are rebuilt there (the events stay on PostgreSQL).
 * REBUILD_ALLOCATION_PROFILE=<file>: V8's sampling heap profile of the rebuild, every allocation counted whether
 * collected or not, written there (summarise with `node bench/cpu-profile-top.ts <file>`): a measure of what the
 * garbage collector is given, steadier between runs than the seconds it takes.
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { performance } from 'node:perf_hooks';
import { createChainEventCatalog } from '@dob/domain';
import { createSqlEventStore } from '@dob/event-store';
import { openMongoDatabase } from '@dob/mongo';
import { DEFAULT_CATCH_UP_BATCH_SIZE, ProjectionRunner, createMongoReadModelStore, createSqlReadModelStore, type ReadModelStore } from '@dob/projections';
import { READ_MODEL_REBUILD_GROUPS, readModelProjections } from '@dob/read-models';
import { createPostgresDatabase } from '@dob/sql';

async function main(): Promise<void> {
  const db = await createPostgresDatabase({ connectionString: process.env.DATABASE_URL!, schema: process.env.SCHEMA! });
  const events = await createSqlEventStore(db, { catalog: createChainEventCatalog() });
  // REBUILD_PAGE: another catch-up page size, to compare with the apps' default.
  const catchUpBatchSize = Number(process.env.REBUILD_PAGE ?? DEFAULT_CATCH_UP_BATCH_SIZE);
  // REBUILD_CACHE_DOCUMENTS: another slot-cache budget; REBUILD_ONLY=a,b: only these read models (profiling one).
  const cacheDocuments = process.env.REBUILD_CACHE_DOCUMENTS ? Number(process.env.REBUILD_CACHE_DOCUMENTS) : undefined;
  const only = process.env.REBUILD_ONLY?.split(',');
  const definitions = readModelProjections.filter((d) => !only || only.includes(d.name));
  const mongo = process.env.MONGODB_URL ? await openMongoDatabase(process.env.MONGODB_URL) : undefined;
  const readModels: ReadModelStore = mongo
    ? createMongoReadModelStore(mongo, { retireGraceMs: 0, cacheDocuments })
    : createSqlReadModelStore(db, { cacheDocuments });
  const runner = new ProjectionRunner(events, readModels, definitions, { catchUpBatchSize });
  const allocations = await startAllocationProfile(process.env.REBUILD_ALLOCATION_PROFILE);
  const cpu = process.cpuUsage();
  const perProjection: Record<string, { seconds: number; events: number }> = {};
  let applied = 0;
  const started = performance.now();
  // One after another as `ops projections rebuild --all` does (each switch overlapping the next build);
  // REBUILD_SEQUENTIAL=1: each rebuild waits for the switch before it (the path before rebuildAll);
  // REBUILD_PARALLEL=n: n rebuilds side by side (lanes take the next read model when theirs is done).
  const lanes = Number(process.env.REBUILD_PARALLEL ?? 1);
  const overlapSwitches = lanes === 1 && !process.env.REBUILD_SEQUENTIAL;
  const done = (name: string, seconds: number, events: number) => {
    perProjection[name] = { seconds: +seconds.toFixed(2), events };
    // On stderr as each finishes (stdout carries the result): a long run shows where it is.
    console.error(`  ${name}: ${perProjection[name]!.seconds} s, ${events} events`);
    applied += events;
  };
  if (overlapSwitches) {
    const startedAt = new Map<string, number>();
    await runner.rebuildAll(
      definitions.map((d) => d.name),
      {
        // REBUILD_UNSHARED=1: every model its own read of the history (the path before the shared groups).
        ...(process.env.REBUILD_UNSHARED ? {} : { groups: READ_MODEL_REBUILD_GROUPS }),
        onProgress: (name) => {
          if (!startedAt.has(name)) startedAt.set(name, performance.now());
        },
        onSwitched: (name, r) => done(name, (performance.now() - startedAt.get(name)!) / 1000, r.eventsApplied),
      },
    );
  } else {
    const queue = [...definitions];
    const lane = async (): Promise<void> => {
      for (let def = queue.shift(); def; def = queue.shift()) {
        const t = performance.now();
        const r = await runner.rebuild(def.name);
        done(def.name, (performance.now() - t) / 1000, r.eventsApplied);
      }
    };
    await Promise.all(Array.from({ length: lanes }, lane));
  }
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  await allocations?.stop();
  await events.close();
  await db.close();
  await mongo?.close();
  console.log(
    JSON.stringify({
      seconds: +seconds.toFixed(2),
      applications: applied,
      cpuSeconds: +((used.user + used.system) / 1e6).toFixed(1),
      // ru_maxrss: the process's peak resident set (KiB on Linux), whatever the sampling would miss.
      peakRssMiB: Math.round(process.resourceUsage().maxRSS / 1024),
      catchUpBatchSize,
      perProjection,
    }),
  );
}

/** Sampling heap profiler from here to stop(), collected objects included (so: every byte allocated, sampled). */
async function startAllocationProfile(file: string | undefined): Promise<{ stop(): Promise<void> } | undefined> {
  if (!file) return undefined;
  const session = new Session();
  session.connect();
  await session.post('HeapProfiler.enable');
  await session.post('HeapProfiler.startSampling', {
    samplingInterval: 64 * 1024,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  });
  return {
    async stop() {
      const { profile } = await session.post('HeapProfiler.stopSampling');
      writeFileSync(file, JSON.stringify(profile));
      session.disconnect();
    },
  };
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
