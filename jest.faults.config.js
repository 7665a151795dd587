// `npm run test:faults`: the fleet under faults (test/faults/*.faults-spec.ts), apart from `npm test` — it starts
// servers of its own and runs minutes of outages (docs/operations.md "Faults, measured").
const { JEST_CODE } = require('./scripts/swc-config');

module.exports = {
  testTimeout: 300000,
  rootDir: __dirname,
  ...JEST_CODE,
  testEnvironment: 'node',
  testMatch: ['<rootDir>/test/faults/*.faults-spec.ts'],
};
