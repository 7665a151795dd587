// How this repository's TypeScript is compiled and its workspace aliases resolved, in one place for the two users
// that compile it with @swc/core directly: Jest (@swc/jest, jest.config.js) and the start scripts' loader
// (scripts/register.js). Tools on @swc-node/register read the same from tsconfig.json.
'use strict';

/** swc options: TypeScript with Nest's legacy decorators and their design-type metadata, CommonJS out. */
const SWC_OPTIONS = {
  jsc: { parser: { syntax: 'typescript', decorators: true }, transform: { legacyDecorator: true, decoratorMetadata: true }, target: 'es2022' },
  module: { type: 'commonjs' },
};

/** Import specifier pattern → source folder relative to the repository root (tsconfig.json `paths`). */
const WORKSPACE_ALIASES = {
  '^@dob/([^/]+)$': 'libs/$1/src',
  '^@dobprotocol/agent-client$': 'packages/agent-client/src',
};

module.exports = { SWC_OPTIONS, WORKSPACE_ALIASES };
