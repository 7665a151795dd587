// npm test runs Jest's files on WORKERS workers (jest.config.js), each on its own PostgreSQL cluster: the event
// store's gap-safe `$all` reads stop below the oldest transaction open anywhere in the cluster
// (pg_snapshot_xmin(pg_current_snapshot()), libs/event-store/src/sql/read-all-query.ts), so files on one cluster
// would hold back each other's reads. Worker n uses port FIRST_PORT + (n - 1) % WORKERS; test/ensure-services.ts
// starts the clusters (scripts/services.sh with DOB_PG_PORT) before Jest. Plain CommonJS: jest.config.js loads it.

/** Two Jest workers on the 2-core machines this suite runs on (measured in docs/operations.md: more only adds load). */
const WORKERS = 2;
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
