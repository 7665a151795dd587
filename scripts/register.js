// The TypeScript loader of `npm start` and the apps' start scripts: each .ts file is compiled by @swc/core when it is
// first required and the workspace aliases resolve to source, both as the tests do (scripts/swc-config.js).
//
// Why not @swc-node/register, which the tools and tests use: it loads the `typescript` package to read tsconfig.json
// and keeps every compiled file and its source map in an in-process cache. For the long-running system that was
// ≈ 90 MB of its memory (a process that only registers it: 39 → 128 MB, this loader: 68 MB; docs/benchmarks.md
// "Fixed-rate mixed load and RSS").
'use strict';
const Module = require('node:module');
const { join } = require('node:path');
const { readFileSync } = require('node:fs');
const { transformSync } = require('@swc/core');
const { SWC_OPTIONS, WORKSPACE_ALIASES } = require('./swc-config');

const ROOT = join(__dirname, '..');
const SOURCE_MAPS = process.env.DOB_SOURCE_MAPS === '1';
const ALIASES = Object.entries(WORKSPACE_ALIASES).map(([pattern, folder]) => [new RegExp(pattern), join(ROOT, folder)]);

const resolveFilename = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  for (const [pattern, folder] of ALIASES) {
    if (pattern.test(request)) return resolveFilename.call(this, request.replace(pattern, folder), ...rest);
  }
  return resolveFilename.call(this, request, ...rest);
};

const OPTIONS = {
  ...SWC_OPTIONS,
  // Off by default: inlined maps lengthen every compiled file's source, which V8 keeps, and Node's source-map support
  // parses each one (≈ 35 MB for the whole system). DOB_SOURCE_MAPS=1 turns them on for readable stack traces.
  sourceMaps: SOURCE_MAPS ? 'inline' : false,
  swcrc: false,
  configFile: false,
};

Module._extensions['.ts'] = function (module, filename) {
  const source = readFileSync(filename, 'utf8');
  const { code } = transformSync(source, { ...OPTIONS, filename });
  module._compile(code, filename);
};

if (SOURCE_MAPS) process.setSourceMapsEnabled(true);
