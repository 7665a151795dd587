// npm test runs Jest's files on WORKERS workers (jest.config.js), each on its own PostgreSQL cluster: the event
// store's gap-safe `$all` reads stop below the oldest transaction open anywhere in the cluster
// (pg_snapshot_xmin(pg_current_snapshot()), libs/event-store/src/sql/read-all-query.ts), so files on one cluster
// would hold back each other's reads. Worker n uses port FIRST_PORT + (n - 1) % WORKERS; test/ensure-services.ts
// starts the clusters (scripts/services.sh with DOB_PG_PORT) before Jest. Plain CommonJS: jest.config.js loads it.

/**
 * One Jest worker for now, though the machinery runs any number. The first CI run with two lost the shared FerretDB
 * half-way (2026-11-27; all its pool connections idle behind a collection create, every MongoDB case after it timed
 * out). The trigger was later found to be one test's MongoDB case (rebuild-at-volume, since taken out), so two workers
 * may well be fine: set 2 once a two-worker run shows it (docs/operations.md "The suite's time").
 */
const WORKERS = 1;
const FIRST_PORT = 5432;

/** Set by `npm test` after test/ensure-services.ts saw every worker's cluster answer; other Jest runs keep one. */
const PER_WORKER_FLAG = 'TEST_POSTGRES_PER_WORKER';

/** The port of Jest worker `workerId`'s PostgreSQL (1-based, as JEST_WORKER_ID). */
function workerPostgresPort(workerId) {
  return FIRST_PORT + ((Math.max(1, Number(workerId) || 1) - 1) % WORKERS);
}

/** Every worker's port, first the default one. */
function workerPostgresPorts() {
  return Array.from({ length: WORKERS }, (_, i) => FIRST_PORT + i);
}

module.exports = { WORKERS, FIRST_PORT, PER_WORKER_FLAG, workerPostgresPort, workerPostgresPorts };
