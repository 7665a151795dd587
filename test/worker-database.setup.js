// Jest setupFiles: runs in each test file's context before the file's modules, so TEST_POSTGRES_URL
// (libs/sql/src/testing/test-databases.ts) and test/services.ts read this worker's cluster. A TEST_DATABASE_URL the
// developer set wins (then every worker shares that server, as before).
const { PER_WORKER_FLAG, workerPostgresPort } = require('./worker-databases');

if (process.env[PER_WORKER_FLAG] === '1' && !process.env.TEST_DATABASE_URL) {
  process.env.TEST_DATABASE_URL = `postgres://postgres@127.0.0.1:${workerPostgresPort(process.env.JEST_WORKER_ID)}/test`;
}
