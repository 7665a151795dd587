// Tests are named by tier: *.spec.ts (unit, next to the code), *.int-spec.ts (real PostgreSQL / Redis / PGlite /
// devnet over HTTP), *.e2e-spec.ts (through HTTP against the running system).
const swc = [
  '@swc/jest',
  {
    jsc: { parser: { syntax: 'typescript', decorators: true }, transform: { legacyDecorator: true, decoratorMetadata: true }, target: 'es2022' },
    module: { type: 'commonjs' },
  },
];
const common = {
  transform: { '^.+\\.ts$': swc },
  moduleNameMapper: { '^@dob/([^/]+)$': '<rootDir>/libs/$1/src', '^@dobprotocol/agent-client$': '<rootDir>/packages/agent-client/src' },
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
