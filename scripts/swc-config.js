// How this repository's TypeScript is compiled and its workspace aliases resolved, in one place for the two users
// that compile it with @swc/core directly: Jest (@swc/jest, jest.config.js) and the start scripts' loader
// (scripts/register.js); Jest compiles package imports lazily (TEST_SWC_OPTIONS). Tools on @swc-node/register read
// the same from tsconfig.json.
'use strict';

/** swc options: TypeScript with Nest's legacy decorators and their design-type metadata, CommonJS out. */
const SWC_OPTIONS = {
  jsc: { parser: { syntax: 'typescript', decorators: true }, transform: { legacyDecorator: true, decoratorMetadata: true }, target: 'es2022' },
  module: { type: 'commonjs' },
};

/**
 * Jest's: imports of packages (any specifier that is not a relative path — node_modules and the @dob/* libraries) are
 * required when a binding is first used, not when the file loads. A test file that takes one function from a
 * library's barrel then no longer evaluates every adapter behind it (the MongoDB driver, stellar-sdk, NestJS), which
 * each of the ~200 files paid afresh in its own module registry: 11–14 % less CPU over 40 int/e2e files, 15–35 % over
 * the unit project (docs/operations.md, "The suite's time"). Relative imports and re-exports stay eager, as in Babel's
 * option of the same name (https://swc.rs/docs/configuration/modules). The processes tests start
 * (scripts/register.js) compile eagerly, as production runs: a started system uses every adapter it imports, so there
 * it saved nothing (npm start: 9.5–10.6 s of CPU to ready either way).
 */
const TEST_SWC_OPTIONS = { ...SWC_OPTIONS, module: { ...SWC_OPTIONS.module, lazy: true } };

/** Import specifier pattern → source folder relative to the repository root (tsconfig.json `paths`). */
const WORKSPACE_ALIASES = {
  '^@dob/([^/]+)$': 'libs/$1/src',
  '^@dobprotocol/agent-client$': 'packages/agent-client/src',
};

/** How Jest compiles and resolves the code, for both of its configurations (jest.config.js, jest.faults.config.js). */
const JEST_CODE = {
  transform: { '^.+\\.ts$': ['@swc/jest', TEST_SWC_OPTIONS] },
  moduleNameMapper: Object.fromEntries(Object.entries(WORKSPACE_ALIASES).map(([pattern, folder]) => [pattern, `<rootDir>/${folder}`])),
};

module.exports = { SWC_OPTIONS, WORKSPACE_ALIASES, JEST_CODE };
