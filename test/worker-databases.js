// npm test runs Jest's files on WORKERS workers (jest.config.js), each on a PostgreSQL cluster and a FerretDB of its
// own. PostgreSQL: the event store's gap-safe `$all` reads stop below the oldest transaction open anywhere in the
// cluster (pg_snapshot_xmin(pg_current_snapshot()), libs/event-store/src/sql/read-all-query.ts), so files on one
// cluster would hold back each other's reads. FerretDB: 1.24 serialises collection creation behind one internal lock
// and has locked up under files creating collections at once (docs/operations.md "The suite's time"); each worker's
// FerretDB keeps its data in that worker's cluster. Worker n uses FIRST_*_PORT + (n - 1) % WORKERS;
// test/ensure-services.ts starts them (scripts/services.sh with DOB_PG_PORT / DOB_FERRETDB_PORT) before Jest.
// Redis and Kafka stay shared: their tests use keys and topics of their own. Plain CommonJS: jest.config.js loads it.

/**
 * Three workers on the two-core machine: with two, 13 % of the CPU sat idle while files waited on servers, outages and
 * child processes; a third took Jest from 615 to 527 s and from 649 to 589 s (two machines, same suite, every test
 * passing; docs/operations.md "The suite's time"). TEST_WORKERS overrides it (each worker gets its own PostgreSQL and
 * FerretDB ports as above).
 */
const WORKERS = Math.max(1, Number(process.env.TEST_WORKERS) || 3);
const FIRST_PORT = 5432;
const FIRST_MONGO_PORT = 27017;

/** Set by `npm test` after test/ensure-services.ts saw every worker's servers answer; other Jest runs keep one. */
const PER_WORKER_FLAG = 'TEST_POSTGRES_PER_WORKER';

const workerIndex = (workerId) => (Math.max(1, Number(workerId) || 1) - 1) % WORKERS;

/** The PostgreSQL port of Jest worker `workerId` (1-based, as JEST_WORKER_ID). */
function workerPostgresPort(workerId) {
  return FIRST_PORT + workerIndex(workerId);
}

/** The FerretDB port of Jest worker `workerId`; it stores its data in the same worker's cluster. */
function workerMongoPort(workerId) {
  return FIRST_MONGO_PORT + workerIndex(workerId);
}

/** The test database on the PostgreSQL at `port` (trust auth, database `test`), as every machine of this project runs it. */
function testPostgresUrl(port = FIRST_PORT) {
  return `postgres://postgres@127.0.0.1:${port}/test`;
}

/** Every worker's servers, first the default ones. */
function workerServerPorts() {
  return Array.from({ length: WORKERS }, (_, i) => ({ postgres: FIRST_PORT + i, mongo: FIRST_MONGO_PORT + i }));
}

module.exports = { WORKERS, FIRST_PORT, FIRST_MONGO_PORT, PER_WORKER_FLAG, workerPostgresPort, workerMongoPort, workerServerPorts, testPostgresUrl };
