// Tests are named by tier: *.spec.ts (unit, next to the code), *.int-spec.ts (real PostgreSQL / Redis / PGlite /
// devnet over HTTP), *.e2e-spec.ts (through HTTP against the running system).
const { JEST_CODE } = require('./scripts/swc-config');
const { WORKERS, PER_WORKER_FLAG } = require('./test/worker-databases');

const common = {
  ...JEST_CODE,
  testEnvironment: 'node',
  rootDir: __dirname,
  // Points TEST_DATABASE_URL at this worker's PostgreSQL cluster when npm test runs one per worker.
  setupFiles: ['<rootDir>/test/worker-database.setup.js', '<rootDir>/test/child-processes.setup.js'],
};
module.exports = {
  testTimeout: 120000,
  // npm test: one PostgreSQL cluster per worker (test/worker-databases.js), so files run WORKERS at a time.
  ...(process.env[PER_WORKER_FLAG] === '1' ? { maxWorkers: WORKERS } : {}),
  workerIdleMemoryLimit: process.env.JEST_WORKER_MEMORY ?? '1GB',
  reporters: ['default', '<rootDir>/test/summary-reporter.js'],
  // The PostgreSQL schemas tests make are dropped after the run, and a killed run's by the next (test/test-schemas.js).
  globalSetup: '<rootDir>/test/global-setup.js',
  globalTeardown: '<rootDir>/test/global-teardown.js',
  // Longest files first, also on a fresh clone without Jest's timing cache (test/file-durations.json).
  testSequencer: '<rootDir>/test/duration-sequencer.js',
  projects: [
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/{apps,libs,packages}/**/*.spec.ts'] },
    { ...common, displayName: 'int', testMatch: ['<rootDir>/{apps,libs,packages,test}/**/*.int-spec.ts'] },
    { ...common, displayName: 'e2e', testMatch: ['<rootDir>/{apps,libs,packages,test}/**/*.e2e-spec.ts'] },
  ],
};
