// The TypeScript loader of `npm start`, the apps' start scripts, `npm run ops` and the processes tests start: each .ts
// file is compiled by @swc/core when it is first required and the workspace aliases resolve to source, both as Jest
// does (scripts/swc-config.js).
//
// Why not @swc-node/register, which the tools (scripts/, bench) use: it loads the `typescript` package to read tsconfig.json
// and keeps every compiled file and its source map in an in-process cache. For the long-running system that was
// ≈ 90 MB of its memory (a process that only registers it: 39 → 128 MB, this loader: 68 MB; docs/benchmarks-journal.md
// "Fixed-rate mixed load and RSS"). @swc/core itself is required only when a file is not in the cache below: loaded up
// front it was another ≈ 32 MB in every process, and in the embedded database's worker thread, whose files are cached
// as soon as any process has started once.
'use strict';
const Module = require('node:module');
const { join } = require('node:path');
const { createHash } = require('node:crypto');
const { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } = require('node:fs');
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

// Compiled files kept on disk by content (the Babel/webpack convention of node_modules/.cache): an app's start
// compiles its ≈ 400 files once, not on every start (≈ 0.2 s of CPU each time). The key covers the swc build, the
// options, the path and the source, so any change compiles afresh; a cache that cannot be written is skipped.
const CACHE_DIR = join(ROOT, 'node_modules', '.cache', 'dob-register');
const CACHE_SALT = JSON.stringify([require('@swc/core/package.json').version, OPTIONS]);

function compiled(source, filename) {
  const key = createHash('sha256').update(CACHE_SALT).update(filename).update('\0').update(source).digest('hex');
  const file = join(CACHE_DIR, `${key}.js`);
  try {
    return readFileSync(file, 'utf8');
  } catch {
    // @swc/core is loaded on the first file not in the cache: a start whose files are all cached (and a worker
    // thread's, whose few files are) never loads the compiler.
    const { code } = require('@swc/core').transformSync(source, { ...OPTIONS, filename });
    keep(file, code);
    return code;
  }
}

/** Written beside and renamed into place, so a process starting at the same time reads the whole file or none. */
function keep(file, code) {
  const partial = `${file}.${process.pid}`;
  try {
    mkdirSync(CACHE_DIR, { recursive: true });
    writeFileSync(partial, code);
    renameSync(partial, file);
  } catch {
    rmSync(partial, { force: true });
  }
}

Module._extensions['.ts'] = function (module, filename) {
  module._compile(compiled(readFileSync(filename, 'utf8'), filename), filename);
};

if (SOURCE_MAPS) process.setSourceMapsEnabled(true);
