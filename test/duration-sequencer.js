// Jest's order of test files for `npm test`: longest first, so the two workers finish together (the longest-first
// rule for scheduling jobs on identical machines). Jest's own sequencer does that only with its timing cache, which a
// fresh clone (CI, a new machine) does not have: it then runs the files by size, and a 90 s file of modest size
// could start last and leave the other worker idle. Here each file's duration comes from, in order: Jest's cache of
// this machine's last run, test/file-durations.json (committed; `node test/record-file-durations.js <jest --json
// output>` refreshes it), or its size as Jest would use it. Files that failed last time still run first.
const { join, relative } = require('node:path');
const Sequencer = require('@jest/test-sequencer').default;
const RECORDED = require('./file-durations.json');

const ROOT = join(__dirname, '..');

/** Seconds per byte of a file no run has timed: a guess (a 10 KB file ≈ 10 s), used only until the file is recorded. */
const SECONDS_PER_BYTE = 1 / 1000;

class DurationSequencer extends Sequencer {
  sort(tests) {
    const expected = (test) => {
      const cached = this.time(test);
      if (cached != null) return cached / 1000;
      const recorded = RECORDED.seconds[relative(ROOT, test.path)];
      if (recorded != null) return recorded;
      return (test.context.hasteFS.getSize(test.path) ?? 0) * SECONDS_PER_BYTE;
    };
    // Jest reads `duration` (ms) for its estimate of the run's time, as with its own sequencer.
    for (const test of tests) test.duration = expected(test) * 1000;
    return [...tests].sort((a, b) => {
      const failedA = this.hasFailed(a);
      if (failedA !== this.hasFailed(b)) return failedA ? -1 : 1;
      return b.duration - a.duration;
    });
  }
}

module.exports = DurationSequencer;
