// npm test runs Jest's files on WORKERS workers (jest.config.js), each on its own PostgreSQL cluster: the event
// store's gap-safe `$all` reads stop below the oldest transaction open anywhere in the cluster
// (pg_snapshot_xmin(pg_current_snapshot()), libs/event-store/src/sql/read-all-query.ts), so files on one cluster
// would hold back each other's reads. Worker n uses port FIRST_PORT + (n - 1) % WORKERS; test/ensure-services.ts
// starts the clusters (scripts/services.sh with DOB_PG_PORT) before Jest. Plain CommonJS: jest.config.js loads it.

/**
 * One Jest worker for now, though the machinery runs any number. With two (one per core, each on its own PostgreSQL
 * cluster) the shared FerretDB 1.24 locked up twice on 2026-11-27 — the second time in a fresh-clone CI run, during
 * libs/read-models/src/mongo/exactly-once.int-spec.ts: all 50 of its PostgreSQL pool connections idle, every command
 * (even ping) waiting while a collection create held its internal lock waiting for a connection — and every MongoDB
 * case after it timed out. Under one file at a time it never has. Two workers need a FerretDB per worker too (on that
 * worker's cluster), which is the next step (docs/operations.md "The suite's time").
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
