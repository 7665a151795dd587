// Jest setupFiles: what the processes a test starts (apps, the ops CLI, npm start) inherit from this one.
//
// V8's code cache on disk (Node's compile cache): the suite starts Node processes some hundred times over the same
// modules, and each skips parsing and compiling what an earlier one compiled: about 13 % of an app's load CPU on this
// machine (docs/operations.md, "The suite's time"). Left to the tests, not set for the system itself: the cached code
// comes in compiled, which made npm start's resident memory 7–14 MB larger (its limit is 400 MB after 10 minutes).
// https://nodejs.org/api/module.html#module-compile-cache
const { tmpdir } = require('node:os');
const { join } = require('node:path');

process.env.NODE_COMPILE_CACHE ??= join(tmpdir(), 'dob-test-compile-cache');
