// Tests are named by tier: *.spec.ts (unit, next to the code), *.int-spec.ts (real PostgreSQL / Redis / PGlite /
// devnet over HTTP), *.e2e-spec.ts (through HTTP against the running system).
const { SWC_OPTIONS, WORKSPACE_ALIASES } = require('./scripts/swc-config');

const common = {
  transform: { '^.+\\.ts$': ['@swc/jest', SWC_OPTIONS] },
  moduleNameMapper: Object.fromEntries(Object.entries(WORKSPACE_ALIASES).map(([pattern, folder]) => [pattern, `<rootDir>/${folder}`])),
  testEnvironment: 'node',
  rootDir: __dirname,
};
module.exports = {
  testTimeout: 120000,
  reporters: ['default', '<rootDir>/test/summary-reporter.js'],
  projects: [
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/{apps,libs,packages}/**/*.spec.ts'] },
    { ...common, displayName: 'int', testMatch: ['<rootDir>/{apps,libs,packages,test}/**/*.int-spec.ts'] },
    { ...common, displayName: 'e2e', testMatch: ['<rootDir>/{apps,packages,test}/**/*.e2e-spec.ts'] },
  ],
};
