// `npm run test:faults`: the fleet under faults (test/faults/*.faults-spec.ts), apart from `npm test` — it starts
// servers of its own and runs minutes of outages (docs/operations.md "Faults, measured").
const { TEST_SWC_OPTIONS, WORKSPACE_ALIASES } = require('./scripts/swc-config');

module.exports = {
  testTimeout: 300000,
  rootDir: __dirname,
  transform: { '^.+\\.ts$': ['@swc/jest', TEST_SWC_OPTIONS] },
  moduleNameMapper: Object.fromEntries(Object.entries(WORKSPACE_ALIASES).map(([pattern, folder]) => [pattern, `<rootDir>/${folder}`])),
  testEnvironment: 'node',
  testMatch: ['<rootDir>/test/faults/*.faults-spec.ts'],
};
