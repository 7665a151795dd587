// The PostgreSQL schemas tests make (libs/sql/src/testing/test-databases.ts testSchemaName: `t_<run>_<random>`, <run>
// the run's start in base-36 ms) are dropped by Jest's global teardown for the run that made them, and by the next
// run's global setup for runs killed before their teardown (older than STALE_MS: no run lasts that long, so a run
// going on beside this one keeps its schemas). Before this, each `npm test` left ~700 schemas (≈ 1 GB) on each
// worker's cluster, and the catalogs and disks of a developer's servers only grew. Plain CommonJS: jest.config.js
// loads it.
const { Client } = require('pg');
const { PER_WORKER_FLAG, workerServerPorts, testPostgresUrl } = require('./worker-databases');

const STALE_MS = 2 * 60 * 60 * 1000;
const RUN_SCHEMA = /^t_([0-9a-z]{8,9})_[0-9a-f]{8}$/;
/** Names given before runs were marked (`t_<12 hex>`, `t_gap_<10 hex>`): nothing makes them any more. */
const UNMARKED_SCHEMA = /^t_(gap_)?[0-9a-f]{10,12}$/;

/** The test servers this run uses: every worker's cluster under `npm test`, else the one TEST_DATABASE_URL names. */
function testServerUrls() {
  if (process.env.TEST_DATABASE_URL) return [process.env.TEST_DATABASE_URL];
  if (process.env[PER_WORKER_FLAG] === '1') return workerServerPorts().map(({ postgres }) => testPostgresUrl(postgres));
  return [testPostgresUrl()];
}

/** Drops the test schemas `doomed(name)` picks on one server; a server that is down is skipped (nothing to drop). */
async function dropSchemas(url, doomed) {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 2000, statement_timeout: 30000 });
  try {
    await client.connect();
  } catch {
    return 0;
  }
  let dropped = 0;
  try {
    const { rows } = await client.query(`SELECT nspname FROM pg_namespace WHERE nspname LIKE 't\\_%'`);
    // Another test's connection may still hold a lock in a schema: wait a moment, then leave it for the next sweep.
    await client.query(`SET lock_timeout = '2s'`);
    for (const { nspname } of rows.filter((r) => doomed(r.nspname))) {
      await client.query(`DROP SCHEMA IF EXISTS "${nspname}" CASCADE`).then(
        () => dropped++,
        () => undefined,
      );
    }
  } finally {
    await client.end().catch(() => undefined);
  }
  return dropped;
}

/** A schema a run killed before its teardown left behind (its run older than STALE_MS), or one named before runs were. */
function leftBehind(name, now) {
  const run = RUN_SCHEMA.exec(name);
  return run ? now - parseInt(run[1], 36) > STALE_MS : UNMARKED_SCHEMA.test(name);
}

async function sweep(doomed, what) {
  for (const url of testServerUrls()) {
    const dropped = await dropSchemas(url, doomed);
    if (dropped > 0) console.log(`test schemas: dropped ${dropped} ${what} on ${new URL(url).host}`);
  }
}

/** Jest globalSetup: marks this run's schemas (the workers inherit the variable) and drops killed runs' leftovers. */
async function globalSetup() {
  const now = Date.now();
  process.env.DOB_TEST_RUN ??= now.toString(36);
  await sweep((name) => leftBehind(name, now), 'left by earlier runs');
}

/** Jest globalTeardown: drops whatever schema of this run a test did not drop itself. */
async function globalTeardown() {
  const run = process.env.DOB_TEST_RUN;
  if (run) await sweep((name) => RUN_SCHEMA.exec(name)?.[1] === run, 'left by this run');
}

module.exports = { globalSetup, globalTeardown, dropSchemas, leftBehind, RUN_SCHEMA, STALE_MS };
