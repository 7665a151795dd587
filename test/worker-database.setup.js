// Jest setupFiles: runs in each test file's context before the file's modules, so TEST_POSTGRES_URL
// (libs/sql/src/testing/test-databases.ts), TEST_MONGODB_URL (libs/mongo/src/testing/test-mongo.ts) and test/services.ts read this
// worker's servers. A TEST_DATABASE_URL or TEST_MONGODB_URL the developer set wins: every worker then shares the
// servers test/services.ts names (test/ensure-services.ts starts no per-worker ones either).
const { PER_WORKER_FLAG, workerPostgresPort, workerMongoPort, testPostgresUrl } = require('./worker-databases');

if (process.env[PER_WORKER_FLAG] === '1' && !process.env.TEST_DATABASE_URL && !process.env.TEST_MONGODB_URL) {
  const worker = process.env.JEST_WORKER_ID;
  process.env.TEST_DATABASE_URL = testPostgresUrl(workerPostgresPort(worker));
  process.env.TEST_MONGODB_URL = `mongodb://127.0.0.1:${workerMongoPort(worker)}/`;
}
